/**
 * Caching in front of the graph store: a write-through node cache and edge-window caches with
 * counts ({@link io.quiver.cache.CachingGraphStore}), kept by the store's change feed, and the
 * invalidation channel between servers ({@link io.quiver.cache.CacheInvalidations}) that every
 * writing process joins. The consistency rule itself, and the UDP peers, are in
 * {@code io.quiver.cache.internal}.
 */
package io.quiver.cache;
