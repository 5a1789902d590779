package io.quiver.store.internal.sql;

import io.vertx.sqlclient.Pool;

/**
 * Where one shard's statements go: its host's pool, and its tables' qualified names. {@code write}
 * when it was taken for writing: {@link ShardClient} then counts its work in flight ({@link MapWrites}).
 */
public record ShardRoute(int shard, String host, Pool pool, boolean write) {
  public String table(String name) {
    return SqlNames.table(shard, name);
  }
}
