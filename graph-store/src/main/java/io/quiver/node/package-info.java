/**
 * Nodes: JSON objects in per-type object tables ({@code nodes_<type>}) on their shard, read with
 * the registry's defaults applied and updated read-modify-write under a row lock.
 */
package io.quiver.node;
