/**
 * The shard map: which host holds each shard, which shards accept new nodes and which are
 * read-only or offline. It lives in ZooKeeper as one typed, versioned document
 * ({@link io.quiver.shard.ShardMapStore}); every server watches it and swaps an immutable copy
 * in atomically ({@link io.quiver.shard.ShardMapWatcher}), and the request path reads it through
 * the narrow {@link io.quiver.shard.ShardResolver}.
 */
package io.quiver.shard;
