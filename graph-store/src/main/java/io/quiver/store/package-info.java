/**
 * The graph store's entry point: {@link io.quiver.store.GraphStore}, the operations product
 * teams call (through HTTP, in graph-api), over the shards of a shard map.
 */
package io.quiver.store;
