/**
 * Caching in front of the graph store: a write-through node cache and edge-window caches with
 * counts ({@link io.quiver.cache.CachingGraphStore}), one consistency rule for both
 * ({@link io.quiver.cache.GuardedCache}), and invalidation across servers
 * ({@link io.quiver.cache.CachePeers}).
 */
package io.quiver.cache;
