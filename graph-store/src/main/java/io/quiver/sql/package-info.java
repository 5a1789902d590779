/**
 * How the graph store talks to MySQL on the serving path: one reactive pool per host
 * ({@link io.quiver.sql.HostPools}), routing from a shard to its pool
 * ({@link io.quiver.sql.ShardRouter}), transactions lent out and retried in one place
 * ({@link io.quiver.sql.Transactions}), database errors classified by MySQL error number
 * ({@link io.quiver.sql.SqlErrors}) and identifiers checked before they reach SQL
 * ({@link io.quiver.sql.SqlNames}).
 */
package io.quiver.sql;
