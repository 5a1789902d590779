package io.quiver.store.internal.sql;

import io.vertx.sqlclient.Pool;

/** Where one shard's statements go: its host's pool, and its tables' qualified names. */
public record ShardRoute(int shard, String host, Pool pool) {
  public String table(String name) {
    return SqlNames.table(shard, name);
  }
}
