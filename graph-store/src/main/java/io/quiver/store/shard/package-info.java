/**
 * Placement: the versioned shard map ({@link io.quiver.store.shard.ShardMap}) with its hosts,
 * ranges, open spans and shard states, its JSON form, and the ZooKeeper store and watcher it is
 * published and followed through (compare-and-set writes; last known good while ZooKeeper is
 * away). Public: operators, the dev stack and the admin service build and read maps.
 */
package io.quiver.store.shard;
