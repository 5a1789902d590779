/**
 * Moving shards between hosts online ({@link io.quiver.fleet.internal.move.ShardMover}): a copy
 * from a consistent snapshot, MariaDB replication filtered to the moving databases until the
 * target is current, chunked checksums on both hosts at one position, a fenced cut-over in the
 * shard map, and the source's copy renamed aside. The state lives in ZooKeeper so any server can
 * resume a move whose runner died.
 */
package io.quiver.fleet.internal.move;
