package io.quiver.store.internal.table;

import io.quiver.schema.NodeType;
import io.quiver.store.NodeId;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.SqlErrors;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.mysqlclient.MySQLException;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * {@code unique_<type>_<field>}: one unique field's claims (FriendFeed's index tables), each on
 * its value's home shard ({@link io.quiver.schema.UniqueIndex#homeShard}); provisioned on every
 * shard like the other tables, though only the index's first shards hold rows.
 *
 * <p>A claim names the node that holds the value and the node version that claimed it. A release
 * deletes a claim only below the version that dropped the value, so a node that took a value
 * back before the release ran keeps its claim. Keyed by the value's SHA-256, so a value of any
 * length is one fixed-width key; the value itself is kept for people (repair reports).
 */
public final class UniqueTable implements ShardTable {
  private static final List<String> COLUMNS = List.of("value_hash", "value_key", "node_id", "node_version", "claimed_us");
  private static final String CLAIM = "value_hash, value_key, node_id, node_version, claimed_us";

  private final String name;

  public UniqueTable(NodeType type, String field) {
    this.name = NodeType.uniqueTableName(type.name(), field);
  }

  /** A stored claim. */
  public record Claim(byte[] hash, String key, NodeId node, long version, long claimedUs) {}

  @Override
  public String name() {
    return name;
  }

  @Override
  public List<String> columns() {
    return COLUMNS;
  }

  @Override
  public List<String> key() {
    return List.of("value_hash");
  }

  @Override
  public String ddl(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + on(shard) + " ("
        + " value_hash BINARY(32) NOT NULL PRIMARY KEY,"
        + " value_key TEXT NOT NULL,"
        + " node_id BIGINT UNSIGNED NOT NULL,"
        + " node_version BIGINT UNSIGNED NOT NULL,"
        + " claimed_us BIGINT NOT NULL"
        + ") ENGINE=InnoDB";
  }

  /** Inserts a claim; answers false, changing nothing, when the value is claimed already. */
  public Future<Boolean> insert(SqlClient client, ShardRoute route, Claim claim) {
    return client.preparedQuery("INSERT INTO " + on(route.shard()) + " (" + CLAIM + ") VALUES (?, ?, ?, ?, ?)")
        .execute(Tuple.of(Buffer.buffer(claim.hash()), claim.key(), claim.node().value(), claim.version(), claim.claimedUs()))
        .map(true)
        .recover(failure -> failure instanceof MySQLException db && db.getErrorCode() == SqlErrors.ER_DUP_ENTRY
            ? Future.succeededFuture(false) : Future.failedFuture(failure));
  }

  /** The claim of a value, or null. */
  public Future<Claim> get(SqlClient client, ShardRoute route, byte[] hash) {
    return client.preparedQuery("SELECT " + CLAIM + " FROM " + on(route.shard()) + " WHERE value_hash = ?")
        .execute(Tuple.of(Buffer.buffer(hash)))
        .map(rows -> rows.size() == 0 ? null : claim(rows.iterator().next()));
  }

  /**
   * Moves {@code held} to {@code next}'s node and version, if it is still exactly as read
   * (compare-and-set); answers whether it moved. The same node re-claiming its value moves it to
   * its newer version, so a release of an older one leaves it.
   */
  public Future<Boolean> replace(SqlClient client, ShardRoute route, Claim held, Claim next) {
    return client.preparedQuery("UPDATE " + on(route.shard()) + " SET node_id = ?, node_version = ?, claimed_us = ?"
            + " WHERE value_hash = ? AND node_id = ? AND node_version = ?")
        .execute(Tuple.of(next.node().value(), next.version(), next.claimedUs(), Buffer.buffer(held.hash()), held.node().value(),
            held.version()))
        .map(rows -> rows.rowCount() == 1);
  }

  /** Deletes the node's claim of a value if it was made below {@code version}: a release. */
  public Future<Void> release(SqlClient client, ShardRoute route, byte[] hash, NodeId node, long version) {
    return client.preparedQuery("DELETE FROM " + on(route.shard())
            + " WHERE value_hash = ? AND node_id = ? AND node_version < ?")
        .execute(Tuple.of(Buffer.buffer(hash), node.value(), version))
        .mapEmpty();
  }

  /** Deletes a claim if it is still exactly as read; answers whether it did. */
  public Future<Boolean> remove(SqlClient client, ShardRoute route, Claim held) {
    return client.preparedQuery("DELETE FROM " + on(route.shard())
            + " WHERE value_hash = ? AND node_id = ? AND node_version = ?")
        .execute(Tuple.of(Buffer.buffer(held.hash()), held.node().value(), held.version()))
        .map(rows -> rows.rowCount() == 1);
  }

  /** Up to {@code limit} claims after {@code afterHash} (null from the start), in key order. */
  public Future<List<Claim>> page(SqlClient client, ShardRoute route, byte[] afterHash, int limit) {
    String sql = "SELECT " + CLAIM + " FROM " + on(route.shard())
        + (afterHash == null ? "" : " WHERE value_hash > ?") + " ORDER BY value_hash LIMIT ?";
    Tuple arguments = afterHash == null ? Tuple.of(limit) : Tuple.of(Buffer.buffer(afterHash), limit);
    return client.preparedQuery(sql).execute(arguments).map(rows -> {
      List<Claim> claims = new ArrayList<>();
      rows.forEach(row -> claims.add(claim(row)));
      return claims;
    });
  }

  private static Claim claim(Row row) {
    return new Claim(row.getBuffer("value_hash").getBytes(), row.getString("value_key"),
        new NodeId(row.getLong("node_id")), row.getLong("node_version"), row.getLong("claimed_us"));
  }
}
