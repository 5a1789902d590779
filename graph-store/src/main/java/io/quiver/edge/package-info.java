/**
 * Edges: unidirectional mapping tables ({@code edges_<type>}) on the FROM node's shard, ordered by
 * a sequence, with active-edge counts kept in {@code edge_counts} in the same transaction.
 */
package io.quiver.edge;
