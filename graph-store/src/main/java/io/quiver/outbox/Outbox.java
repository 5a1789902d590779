package io.quiver.outbox;

import io.quiver.edge.EdgeRow;
import io.quiver.edge.InverseLog;
import io.quiver.sql.SqlValues;
import java.time.Clock;
import io.quiver.id.NodeId;
import io.quiver.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLClient;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;

/**
 * The outbox table of each shard: the statements that append, read, retire, reschedule and
 * park its entries.
 *
 * <p>Entries are read in the order of the {@code due} index, {@code (parked, next_attempt_us,
 * id)}, never through a cursor over "the highest id seen": an entry whose transaction commits
 * late has a lower id than ones already seen, and such a cursor would skip it for ever. Applied
 * entries are deleted, so reading from the start each time costs only what is pending. Order
 * does not matter for correctness: operations on one edge converge in any order.
 */
public final class Outbox {
  static final String TABLE = "outbox";
  /**
   * The edge type id of a cascade entry: "remove every edge from {@code from_id}". Real edge type
   * ids start at 1, so the one table and its one drainer carry both kinds of work.
   */
  public static final int CASCADE = 0;
  private static final String COLUMNS = "id, edge_type, from_id, to_id, state, sequence, data, updated_us, attempts";

  private Outbox() {}

  /** The outbox as the log forward writes append their inverse operations to. */
  public static InverseLog log(Clock clock) {
    return (connection, route, inverseTypeId, from, to, row) ->
        append(connection, route, new InverseOp(inverseTypeId, from, to, row), SqlValues.nowMicros(clock));
  }

  /** Appends an entry inside the forward write's transaction; answers its id. */
  public static Future<Long> append(SqlConnection connection, ShardRoute route, InverseOp op, long nowUs) {
    String sql = "INSERT INTO " + route.table(TABLE)
        + " (edge_type, from_id, to_id, state, sequence, data, updated_us, created_us, next_attempt_us)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, 0)";
    EdgeRow row = op.row();
    return connection.preparedQuery(sql)
        .execute(Tuple.of(op.edgeTypeId(), op.from().value(), op.to().value(), row.state(), row.sequence(),
            row.data(), row.updatedUs(), nowUs))
        .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID));
  }

  /** Appends a cascade entry inside a node deletion's transaction. */
  public static Future<Long> appendCascade(SqlConnection connection, ShardRoute route, NodeId node, long nowUs) {
    return append(connection, route, new InverseOp(CASCADE, node, node, EdgeRow.ABSENT), nowUs);
  }

  /** Entries due now, at most {@code limit}. */
  static Future<List<OutboxEntry>> due(SqlClient client, ShardRoute route, long nowUs, int limit) {
    String sql = "SELECT " + COLUMNS + " FROM " + route.table(TABLE)
        + " WHERE parked = 0 AND next_attempt_us <= ? ORDER BY next_attempt_us, id LIMIT ?";
    return client.preparedQuery(sql).execute(Tuple.of(nowUs, limit)).map(rows -> {
      List<OutboxEntry> entries = new ArrayList<>();
      rows.forEach(row -> entries.add(read(route.shard(), row)));
      return entries;
    });
  }

  /** One entry, if it is still pending. */
  static Future<OutboxEntry> get(SqlClient client, ShardRoute route, long id) {
    return client.preparedQuery("SELECT " + COLUMNS + " FROM " + route.table(TABLE) + " WHERE id = ?")
        .execute(Tuple.of(id))
        .map(rows -> rows.size() == 0 ? null : read(route.shard(), rows.iterator().next()));
  }

  static Future<Void> delete(SqlClient client, ShardRoute route, long id) {
    return client.preparedQuery("DELETE FROM " + route.table(TABLE) + " WHERE id = ?").execute(Tuple.of(id))
        .mapEmpty();
  }

  /** Tries the entry again later; {@code counted} attempts count toward parking it. */
  static Future<Void> reschedule(SqlClient client, ShardRoute route, long id, int counted, long nextAttemptUs,
      boolean park, String error) {
    String sql = "UPDATE " + route.table(TABLE)
        + " SET attempts = attempts + ?, next_attempt_us = ?, parked = ?, last_error = ? WHERE id = ?";
    String trimmed = error == null ? null : error.substring(0, Math.min(error.length(), 1000));
    return client.preparedQuery(sql).execute(Tuple.of(counted, nextAttemptUs, park ? 1 : 0, trimmed, id))
        .mapEmpty();
  }

  /** Pending and parked entries of a shard, and the creation time of the oldest pending one. */
  static Future<ShardDepth> depth(SqlClient client, ShardRoute route) {
    String sql = "SELECT SUM(parked = 0) AS pending, SUM(parked = 1) AS parked,"
        + " MIN(CASE WHEN parked = 0 THEN created_us END) AS oldest FROM " + route.table(TABLE);
    return client.query(sql).execute().map(rows -> {
      Row row = rows.iterator().next();
      Number pending = row.getNumeric("pending");
      Number parked = row.getNumeric("parked");
      return new ShardDepth(pending == null ? 0 : pending.longValue(), parked == null ? 0 : parked.longValue(),
          row.getLong("oldest"));
    });
  }

  /** @param oldestCreatedUs null when nothing is pending */
  record ShardDepth(long pending, long parked, Long oldestCreatedUs) {}

  private static OutboxEntry read(int shard, Row row) {
    EdgeRow edge = new EdgeRow(row.getLong("sequence"), row.getInteger("state"), row.getString("data"),
        row.getLong("updated_us"));
    InverseOp op = new InverseOp(row.getInteger("edge_type"), new NodeId(row.getLong("from_id")),
        new NodeId(row.getLong("to_id")), edge);
    return new OutboxEntry(row.getLong("id"), shard, op, row.getInteger("attempts"));
  }
}
