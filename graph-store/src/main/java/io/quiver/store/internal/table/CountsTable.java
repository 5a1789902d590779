package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.InLists;
import io.quiver.store.internal.sql.Returning;
import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLClient;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * {@code edge_counts}: the number of active edges of each (from, edge type), kept in the same
 * transaction as the edge rows it counts, so a count always equals its active rows.
 *
 * <h2>The list's version</h2>
 * Beside the count, every committed change to a list — an edge added, updated or removed, by a
 * client or by the inverse applier — moves the list's {@code version} by one, in the same
 * transaction, under the same row lock. So changes to one list are numbered in commit order, and
 * a reader that sees version <i>v</i> has seen exactly the first <i>v</i> changes: a cache that
 * holds a list at version <i>v</i> can apply change <i>v + 1</i> in place, ignore what it already
 * holds, and knows a gap when it sees one. The new version comes back in the write's own OK
 * packet ({@code LAST_INSERT_ID(expr)}), so numbering costs no extra round trip.
 */
public final class CountsTable implements ShardTable {
  public static final CountsTable INSTANCE = new CountsTable();
  private static final List<String> COLUMNS = List.of("from_id", "edge_type", "count", "version");

  private CountsTable() {}

  @Override
  public String name() {
    return "edge_counts";
  }

  @Override
  public List<String> columns() {
    return COLUMNS;
  }

  @Override
  public List<String> key() {
    return List.of("from_id", "edge_type");
  }

  @Override
  public String ddl(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + on(shard) + " ("
        + " from_id BIGINT UNSIGNED NOT NULL,"
        + " edge_type SMALLINT UNSIGNED NOT NULL,"
        + " count BIGINT NOT NULL,"
        + " version BIGINT NOT NULL DEFAULT 0,"
        + " PRIMARY KEY (from_id, edge_type)"
        + ") ENGINE=InnoDB";
  }

  /** Counts written before lists had versions start at version 0. */
  @Override
  public List<String> upgrades(int shard, Set<String> existingColumns) {
    return existingColumns.contains("version") ? List.of()
        : List.of("ALTER TABLE " + on(shard) + " ADD COLUMN version BIGINT NOT NULL DEFAULT 0");
  }

  /**
   * Records one committed change to a list: moves its count by {@code delta} (0 for an update)
   * and its version by one, creating the row at the list's first change. Answers the new version.
   */
  public Future<Long> adjust(SqlClient client, ShardRoute route, int edgeTypeId, long from, int delta) {
    String sql = "INSERT INTO " + on(route.shard()) + " (from_id, edge_type, count, version)"
        + " VALUES (?, ?, ?, LAST_INSERT_ID(1))"
        + " ON DUPLICATE KEY UPDATE count = count + VALUES(count), version = LAST_INSERT_ID(version + 1)";
    return client.preparedQuery(sql).execute(Tuple.of(from, edgeTypeId, delta))
        .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID));
  }

  /** What a batch does to one list: its count moves by {@code delta}, its version by {@code changes}. */
  public record Adjustment(long from, int delta, int changes) {
    public Adjustment plus(Adjustment other) {
      return new Adjustment(from, delta + other.delta, changes + other.changes);
    }
  }

  /**
   * {@link #adjust} for many lists of one edge type at once, in one statement; padded to a power
   * of two of rows by repeating the last list with nothing to add, which changes nothing. Answers
   * the versions it made, by FROM node. On a host whose {@code INSERT} answers rows
   * ({@link Returning}) the statement answers them itself ({@code RETURNING}; a padded row
   * answers its list's version again, unchanged); on any other, a second statement sent behind it
   * in the same transaction reads them ({@link #versions}). Issue 37: that read was one statement
   * in forty of the writes mix, sent by every batch the drainer and the bulk import write.
   */
  public Future<Map<Long, Long>> adjustMany(SqlConnection connection, ShardRoute route, int edgeTypeId,
      List<Adjustment> adjustments) {
    int slots = InLists.bucket(adjustments.size());
    List<Object> arguments = new ArrayList<>(slots * 4);
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(on(route.shard()))
        .append(" (from_id, edge_type, count, version) VALUES ");
    for (int slot = 0; slot < slots; slot++) {
      boolean padding = slot >= adjustments.size();
      Adjustment adjustment = adjustments.get(Math.min(slot, adjustments.size() - 1));
      sql.append(slot == 0 ? "(?, ?, ?, ?)" : ", (?, ?, ?, ?)");
      arguments.add(adjustment.from());
      arguments.add(edgeTypeId);
      arguments.add(padding ? 0 : adjustment.delta());
      arguments.add(padding ? 0 : adjustment.changes());
    }
    sql.append(" ON DUPLICATE KEY UPDATE count = count + VALUES(count), version = version + VALUES(version)");
    if (Returning.answers(connection)) {
      return connection.preparedQuery(sql.append(" RETURNING from_id, version").toString())
          .execute(Tuple.wrap(arguments)).map(CountsTable::versionsByFrom);
    }
    Future<?> adjusted = connection.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments));
    Future<Map<Long, Long>> versions = versions(connection, route, edgeTypeId,
        adjustments.stream().map(Adjustment::from).toList());
    return Future.all(adjusted, versions).map(both -> versions.result());
  }

  /**
   * The versions of these lists of one edge type, by FROM node; in the transaction that just
   * {@link #adjustMany adjusted} them, the versions that transaction made.
   */
  public Future<Map<Long, Long>> versions(SqlClient client, ShardRoute route, int edgeTypeId, List<Long> froms) {
    List<Object> arguments = new ArrayList<>();
    arguments.add(edgeTypeId);
    String sql = "SELECT from_id, version FROM " + on(route.shard()) + " WHERE edge_type = ? AND from_id IN ("
        + InLists.pad(froms, arguments) + ")";
    return client.preparedQuery(sql).execute(Tuple.wrap(arguments)).map(CountsTable::versionsByFrom);
  }

  /** Rows of {@code (from_id, version)} by FROM node. */
  private static Map<Long, Long> versionsByFrom(RowSet<Row> rows) {
    Map<Long, Long> versions = new HashMap<>();
    rows.forEach(row -> versions.put(row.getLong("from_id"), row.getLong("version")));
    return versions;
  }

  /** The count of one list; 0 when it has never had an edge. */
  public Future<Long> read(SqlClient client, ShardRoute route, int edgeTypeId, long from) {
    return client.preparedQuery("SELECT count FROM " + on(route.shard()) + " WHERE from_id = ? AND edge_type = ?")
        .execute(Tuple.of(from, edgeTypeId))
        .map(rows -> rows.size() == 0 ? 0L : rows.iterator().next().getLong("count"));
  }

  /** For JDBC readers: every (from_id, count) of one edge type on a shard. */
  public String countsOfTypeSql(int shard) {
    return "SELECT from_id, count FROM " + on(shard) + " WHERE edge_type = ?";
  }
}
