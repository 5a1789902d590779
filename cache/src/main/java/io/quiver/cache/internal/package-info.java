/**
 * The cache's implementation, not its API: the one consistency rule for nodes and edge windows
 * ({@link io.quiver.cache.internal.GuardedCache}), the edge window itself
 * ({@link io.quiver.cache.internal.EdgeWindow}), and the UDP peers behind
 * {@link io.quiver.cache.CacheInvalidations} ({@link io.quiver.cache.internal.CachePeers}).
 */
package io.quiver.cache.internal;
