package io.quiver.edge;

import io.quiver.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;

/**
 * The statements that change one copy of an edge inside a transaction, shared by client writes
 * ({@link EdgeStore}) and the inverse applier: lock the row, write it, keep its count.
 */
public final class EdgeRows {
  private static final String COUNTS = "edge_counts";

  private EdgeRows() {}

  /**
   * Locks the edge's row and reads it. Sessions run at READ COMMITTED, where a locking read of a
   * missing row locks nothing; so the row is first made to exist (a placeholder tombstone ranked
   * below everything) by an upsert that changes nothing, which locks it either way.
   */
  public static Future<EdgeRow> lock(SqlConnection connection, String table, long from, long to) {
    String ensure = "INSERT INTO " + table + " (from_id, to_id, sequence, state, data, updated_us)"
        + " VALUES (?, ?, 0, " + EdgeRow.DELETED + ", NULL, 0) ON DUPLICATE KEY UPDATE updated_us = updated_us";
    return connection.preparedQuery(ensure).execute(Tuple.of(from, to))
        .compose(locked -> readLocked(connection, table, from, to));
  }

  /** The row, locked if it exists; null when there is none (which, at READ COMMITTED, locks nothing). */
  public static Future<EdgeRow> readLocked(SqlConnection connection, String table, long from, long to) {
    String read = "SELECT sequence, state, data, updated_us FROM " + table
        + " WHERE from_id = ? AND to_id = ? FOR UPDATE";
    return connection.preparedQuery(read).execute(Tuple.of(from, to))
        .map(rows -> rows.size() == 0 ? null : read(rows.iterator().next()));
  }

  /** Writes a locked row and moves the FROM node's count if the edge became active or inactive. */
  public static Future<Void> write(SqlConnection connection, ShardRoute route, String table, int edgeTypeId,
      long from, long to, EdgeRow before, EdgeRow after) {
    String sql = "UPDATE " + table + " SET sequence = ?, state = ?, data = ?, updated_us = ?"
        + " WHERE from_id = ? AND to_id = ?";
    Future<Void> written = connection.preparedQuery(sql)
        .execute(Tuple.of(after.sequence(), after.state(), after.data(), after.updatedUs(), from, to))
        .mapEmpty();
    if (before.active() == after.active()) {
      return written;
    }
    return written.compose(done -> adjustCount(connection, route, edgeTypeId, from, after.active() ? 1 : -1));
  }

  private static Future<Void> adjustCount(SqlConnection connection, ShardRoute route, int edgeTypeId, long from,
      int delta) {
    String sql = "INSERT INTO " + route.table(COUNTS) + " (from_id, edge_type, count) VALUES (?, ?, ?)"
        + " ON DUPLICATE KEY UPDATE count = count + VALUES(count)";
    return connection.preparedQuery(sql).execute(Tuple.of(from, edgeTypeId, delta)).mapEmpty();
  }

  public static EdgeRow read(Row row) {
    return new EdgeRow(row.getLong("sequence"), row.getInteger("state"), row.getString("data"),
        row.getLong("updated_us"));
  }
}
