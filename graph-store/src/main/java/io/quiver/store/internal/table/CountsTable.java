package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * {@code edge_counts}: the number of active edges of each (from, edge type), kept in the same
 * transaction as the edge rows it counts, so a count always equals its active rows.
 */
public final class CountsTable implements ShardTable {
  public static final CountsTable INSTANCE = new CountsTable();
  private static final List<String> COLUMNS = List.of("from_id", "edge_type", "count");

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
        + " PRIMARY KEY (from_id, edge_type)"
        + ") ENGINE=InnoDB";
  }

  /** Moves a count by {@code delta}, creating its row at the first edge. */
  public Future<Void> adjust(SqlClient client, ShardRoute route, int edgeTypeId, long from, int delta) {
    String sql = "INSERT INTO " + on(route.shard()) + " (from_id, edge_type, count) VALUES (?, ?, ?)"
        + " ON DUPLICATE KEY UPDATE count = count + VALUES(count)";
    return client.preparedQuery(sql).execute(Tuple.of(from, edgeTypeId, delta)).mapEmpty();
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
