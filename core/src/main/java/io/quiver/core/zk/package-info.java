/**
 * Typed, versioned documents in ZooKeeper, the form both the shard map and the schema registry
 * take: compare-and-set publishing ({@link io.quiver.core.zk.ZkDocumentStore}), watching with an
 * explicit lifecycle and last-known-good serving ({@link io.quiver.core.zk.ZkDocumentWatcher}),
 * the document in force as one kind of source ({@link io.quiver.core.zk.DocumentSource}), and the
 * fence that acknowledges a version only once no write begun under an older one can commit
 * ({@link io.quiver.core.zk.VersionFence}, with {@link io.quiver.core.zk.ServedVersions}).
 */
package io.quiver.core.zk;



