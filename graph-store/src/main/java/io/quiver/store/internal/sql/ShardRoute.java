package io.quiver.store.internal.sql;

import io.vertx.sqlclient.Pool;

/**
 * Where one shard's statements go: a pool on its host, and its tables' qualified names. {@code write}
 * when it was taken for writing: {@link ShardClient} then counts its work in flight ({@link MapWrites}).
 * A stale-tolerant read's route may go to a replica instead of the primary ({@code replica} names it),
 * or carry a {@link Hedge}: a replica to send the same read to if the primary is slow.
 */
public record ShardRoute(int shard, String host, Pool pool, boolean write, String replica, Hedge hedge) {
  /** A replica within the lag bound, and how long to wait for the primary before asking it too. */
  public record Hedge(String replica, Pool pool, long afterMillis) {}

  /** A route to the shard's primary. */
  public ShardRoute(int shard, String host, Pool pool, boolean write) {
    this(shard, host, pool, write, null, null);
  }

  public String table(String name) {
    return SqlNames.table(shard, name);
  }

  /** The same read sent to the hedge's replica. */
  ShardRoute toHedge() {
    return new ShardRoute(shard, host, hedge.pool(), false, hedge.replica(), null);
  }

  /** Where the statements go, for a message: the host, and the replica when it is one. */
  String target() {
    return replica == null ? "host " + host : "host " + host + "'s replica " + replica;
  }
}
