/**
 * Automatic failover: one coordinator among the servers
 * ({@link io.quiver.fleet.internal.failover.FailoverCoordinator}, the holder of an ephemeral znode) watches
 * every primary that has replicas and fails over one that stops answering
 * ({@link io.quiver.fleet.internal.failover.Failover}: refuse writes, fence, choose, promote,
 * publish, accept writes, mend inverses — the last beside the coordinator,
 * {@link io.quiver.fleet.internal.failover.InverseMender}), recording each in ZooKeeper
 * ({@link io.quiver.fleet.internal.failover.FailoverLog}).
 */
package io.quiver.fleet.internal.failover;
