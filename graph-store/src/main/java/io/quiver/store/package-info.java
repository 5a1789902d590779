/**
 * graph-store's public face, and all of it: the graph operations
 * ({@link io.quiver.store.GraphStore}) and their values ({@link io.quiver.store.Node},
 * {@link io.quiver.store.Edge}, {@link io.quiver.store.EdgeQuery}, {@link io.quiver.store.EdgePage},
 * {@link io.quiver.store.NodeId}, results), the {@link io.quiver.store.GraphBackend} that owns the
 * connections and offers beside the operations the {@link io.quiver.store.ChangeFeed}, the
 * {@link io.quiver.store.StoreTelemetry} and the {@link io.quiver.store.Repairs}, what a shard
 * database holds ({@link io.quiver.store.ShardLayout}, for the fleet module that creates and moves
 * them), composed reads ({@link io.quiver.store.GraphQueries}), and the options records. Placement (the shard map
 * and where it comes from) is in {@code io.quiver.store.shard}; everything else is in
 * {@code io.quiver.store.internal}, which no other module may import.
 */
package io.quiver.store;
