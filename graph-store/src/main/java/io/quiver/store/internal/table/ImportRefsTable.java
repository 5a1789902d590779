package io.quiver.store.internal.table;

import io.quiver.store.NodeId;
import io.quiver.store.internal.sql.InLists;
import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code import_refs}: the references a bulk import gave its nodes, each on its node's shard and
 * written in the node's own transaction, so a node and its reference exist together or not at
 * all. A rerun of the import looks its references up on every shard and finds what the first
 * run created, whichever shard the node went to and however the map has grown since.
 */
public final class ImportRefsTable implements ShardTable {
  public static final ImportRefsTable INSTANCE = new ImportRefsTable();
  private static final List<String> COLUMNS = List.of("import_name", "ref", "node_id");

  private ImportRefsTable() {}

  @Override
  public String name() {
    return "import_refs";
  }

  @Override
  public List<String> columns() {
    return COLUMNS;
  }

  @Override
  public List<String> key() {
    return List.of("import_name", "ref");
  }

  @Override
  public String ddl(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + on(shard) + " ("
        + " import_name VARCHAR(64) NOT NULL,"
        + " ref VARCHAR(128) NOT NULL,"
        + " node_id BIGINT UNSIGNED NOT NULL,"
        + " PRIMARY KEY (import_name, ref)"
        + ") ENGINE=InnoDB";
  }

  /** Records references of nodes created in the caller's transaction: one statement. */
  public Future<Void> insert(SqlConnection connection, ShardRoute route, String importName, Map<String, NodeId> refs) {
    List<Object> arguments = new ArrayList<>(refs.size() * 3);
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(on(route.shard()))
        .append(" (import_name, ref, node_id) VALUES ");
    refs.forEach((ref, id) -> {
      sql.append(arguments.isEmpty() ? "(?, ?, ?)" : ", (?, ?, ?)");
      arguments.add(importName);
      arguments.add(ref);
      arguments.add(id.value());
    });
    return connection.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)).mapEmpty();
  }

  /** The nodes that the shard holds under these references of an import. */
  public Future<Map<String, NodeId>> find(SqlClient client, ShardRoute route, String importName, List<String> refs) {
    List<Object> arguments = new ArrayList<>();
    arguments.add(importName);
    String sql = "SELECT ref, node_id FROM " + on(route.shard()) + " WHERE import_name = ? AND ref IN ("
        + InLists.pad(refs, arguments) + ")";
    return client.preparedQuery(sql).execute(Tuple.wrap(arguments)).map(rows -> {
      Map<String, NodeId> found = new HashMap<>();
      rows.forEach(row -> found.put(row.getString("ref"), new NodeId(row.getLong("node_id"))));
      return found;
    });
  }
}
