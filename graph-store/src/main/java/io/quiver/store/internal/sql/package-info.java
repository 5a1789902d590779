/**
 * How the graph store talks to MySQL on the serving path: one reactive pool per host
 * ({@link io.quiver.store.internal.sql.HostPools}), routing from a shard to its pool through one
 * snapshot of the shard map ({@link io.quiver.store.internal.sql.ShardRouter}), transactions lent
 * out and retried in one place ({@link io.quiver.store.internal.sql.ShardClient#inTransaction}, whose
 * work is lent a connection that refuses statements once the transaction ends,
 * {@link io.quiver.store.internal.sql.LentConnection}), client writes to one host that wait while
 * its transactions are busy committed together ({@link io.quiver.store.internal.sql.GroupCommit}),
 * each host probed ({@link io.quiver.store.internal.sql.HostHealth}) and each replica's lag measured,
 * so that a read tolerating bounded staleness may go to one ({@link io.quiver.store.internal.sql.ReplicaLag}),
 * database errors classified by MySQL error number ({@link io.quiver.store.internal.sql.SqlErrors})
 * and identifiers checked before they reach SQL ({@link io.quiver.store.internal.sql.SqlNames}).
 */
package io.quiver.store.internal.sql;
