/**
 * Typed, versioned documents in ZooKeeper, the form both the shard map and the schema registry
 * take: compare-and-set publishing ({@link io.quiver.core.zk.ZkDocumentStore}) and watching with an
 * explicit lifecycle and last-known-good serving ({@link io.quiver.core.zk.ZkDocumentWatcher}).
 */
package io.quiver.core.zk;



