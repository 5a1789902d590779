package io.quiver.store.internal.table;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.schema.NodeType;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.quiver.store.internal.sql.InLists;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.SqlValues;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLClient;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code nodes_<type>}: one node type's object table on a shard. A node's local ID is the
 * table's AUTO_INCREMENT; its data is the JSON its clients wrote, without defaults (they are
 * applied on every read, never written back), so adding a field touches no row.
 *
 * <p>Timestamps are {@code DATETIME(6)} holding UTC rather than {@code TIMESTAMP(6)}: a
 * TIMESTAMP is converted through the session time zone on the way in and out and ends in 2038.
 */
public final class NodesTable implements ShardTable {
  private static final List<String> COLUMNS = List.of("local_id", "data", "version", "created_at", "updated_at");

  private final NodeType type;

  public NodesTable(NodeType type) {
    this.type = type;
  }

  public NodeType type() {
    return type;
  }

  @Override
  public String name() {
    return type.tableName();
  }

  @Override
  public List<String> columns() {
    return COLUMNS;
  }

  @Override
  public List<String> key() {
    return List.of("local_id");
  }

  @Override
  public String ddl(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + on(shard) + " ("
        + " local_id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
        + " data JSON NOT NULL,"
        + " version BIGINT UNSIGNED NOT NULL,"
        + " created_at DATETIME(6) NOT NULL,"
        + " updated_at DATETIME(6) NOT NULL"
        + ") ENGINE=InnoDB";
  }

  /** Inserts a first version; answers the local ID the table gave it. */
  public Future<Long> insert(SqlConnection connection, ShardRoute route, ObjectNode data, Instant now) {
    String sql = "INSERT INTO " + on(route.shard()) + " (data, version, created_at, updated_at) VALUES (?, 1, ?, ?)";
    return connection.preparedQuery(sql)
        .execute(Tuple.of(SqlValues.toJson(data), SqlValues.toDateTime(now), SqlValues.toDateTime(now)))
        .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID));
  }

  /** The stored row of a node, or null; locked against writers when {@code lock} is FOR_UPDATE. */
  public Future<Row> select(SqlClient client, ShardRoute route, NodeId id, Lock lock) {
    String sql = "SELECT " + columnList() + " FROM " + on(route.shard()) + " WHERE local_id = ?" + lock.suffix;
    return client.preparedQuery(sql).execute(Tuple.of(id.local()))
        .map(rows -> rows.size() == 0 ? null : rows.iterator().next());
  }

  /** How a read locks the rows it reads. */
  public enum Lock {
    NONE(""),
    /** Against other writers, until the transaction ends. */
    FOR_UPDATE(" FOR UPDATE"),
    /** Against deletion, while letting other readers lock too. */
    SHARED(" LOCK IN SHARE MODE");

    private final String suffix;

    Lock(String suffix) {
      this.suffix = suffix;
    }
  }

  /** Whether the node exists, locking its row against deletion until the transaction ends. */
  public Future<Boolean> existsLocked(SqlConnection connection, ShardRoute route, NodeId id) {
    return connection.preparedQuery(existsLockedQuery(route.shard(), "1")).execute(Tuple.of(id.local()))
        .map(rows -> rows.size() > 0);
  }

  /**
   * The statement of {@link #existsLocked}, selecting {@code columns} (its one parameter, the local
   * ID): for a statement that sends it with another table's locking read as one ({@link
   * EdgesTable#readLockedFrom}).
   */
  String existsLockedQuery(int shard, String columns) {
    return "SELECT " + columns + " FROM " + on(shard) + " WHERE local_id = ?" + Lock.SHARED.suffix;
  }

  /**
   * Which of {@code ids} exist, each locked against deletion until the transaction ends, as
   * {@link #existsLocked} locks one: the statement, selecting {@code columns}, its parameters added
   * to {@code arguments}, for a statement that sends it with another table's locking read as one
   * ({@link EdgesTable#readLockedManyFrom}).
   */
  String existingLockedQuery(int shard, String columns, List<NodeId> ids, List<Object> arguments) {
    return "SELECT " + columns + " FROM " + on(shard) + " WHERE local_id IN ("
        + InLists.pad(ids.stream().map(NodeId::local).toList(), arguments) + ")" + Lock.SHARED.suffix;
  }

  /** The ID of this table's node {@code local} on {@code route}'s shard. */
  NodeId idOf(ShardRoute route, long local) {
    return NodeId.of(route.shard(), type.id(), local);
  }

  /** Writes a new version of a locked row. */
  public Future<Void> update(SqlConnection connection, ShardRoute route, Node next) {
    String sql = "UPDATE " + on(route.shard()) + " SET data = ?, version = ?, updated_at = ? WHERE local_id = ?";
    return connection.preparedQuery(sql)
        .execute(Tuple.of(SqlValues.toJson(next.data()), next.version(), SqlValues.toDateTime(next.updatedAt()),
            next.id().local()))
        .mapEmpty();
  }

  /** Deletes a node's row; answers whether there was one. */
  public Future<Boolean> delete(SqlConnection connection, ShardRoute route, NodeId id) {
    return connection.preparedQuery("DELETE FROM " + on(route.shard()) + " WHERE local_id = ?")
        .execute(Tuple.of(id.local()))
        .map(rows -> rows.rowCount() > 0);
  }

  /**
   * The nodes of several types on one shard in one statement: the per-type lookups joined with
   * UNION ALL, each IN list padded ({@link InLists}) so a table sees few statement shapes.
   */
  public static Future<List<Node>> selectMany(SqlClient client, ShardRoute route, Map<NodesTable, List<NodeId>> byTable) {
    StringBuilder sql = new StringBuilder();
    List<Object> arguments = new ArrayList<>();
    List<NodesTable> tables = new ArrayList<>(byTable.keySet());
    for (int i = 0; i < tables.size(); i++) {
      NodesTable table = tables.get(i);
      List<Long> locals = byTable.get(table).stream().map(NodeId::local).toList();
      sql.append(i == 0 ? "" : " UNION ALL ")
          .append("SELECT ").append(i).append(" AS table_index, ").append(table.columnList())
          .append(" FROM ").append(table.on(route.shard()))
          .append(" WHERE local_id IN (").append(InLists.pad(locals, arguments)).append(')');
    }
    return client.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)).map(rows -> {
      List<Node> nodes = new ArrayList<>();
      for (Row row : rows) {
        NodesTable table = tables.get(row.getInteger("table_index"));
        nodes.add(table.node(NodeId.of(route.shard(), table.type.id(), row.getLong("local_id")), row));
      }
      return nodes;
    });
  }

  /** A node as stored: its data without defaults, and its version. */
  public record StoredNode(NodeId id, ObjectNode data, long version) {}

  /** Up to {@code limit} stored nodes with local IDs after {@code afterLocal}, in ID order: a scan's page. */
  public Future<List<StoredNode>> page(SqlClient client, ShardRoute route, long afterLocal, int limit) {
    String sql = "SELECT local_id, data, version FROM " + on(route.shard())
        + " WHERE local_id > ? ORDER BY local_id LIMIT ?";
    return client.preparedQuery(sql).execute(Tuple.of(afterLocal, limit)).map(rows -> {
      List<StoredNode> page = new ArrayList<>();
      rows.forEach(row -> page.add(new StoredNode(idOf(route, row.getLong("local_id")),
          storedData(row), row.getLong("version"))));
      return page;
    });
  }

  /** A stored row as a node, with the type's defaults applied. */
  public Node node(NodeId id, Row row) {
    return new Node(
        id,
        type.name(),
        type.withDefaults(SqlValues.parseObject(row.getString("data"))),
        row.getLong("version"),
        SqlValues.fromDateTime(row.getLocalDateTime("created_at")),
        SqlValues.fromDateTime(row.getLocalDateTime("updated_at")));
  }

  /** The data a row holds, as stored (without defaults). */
  public static ObjectNode storedData(Row row) {
    return SqlValues.parseObject(row.getString("data"));
  }

  /** For JDBC readers: a node's data exactly as stored. */
  public String storedDataSql(int shard) {
    return "SELECT data FROM " + on(shard) + " WHERE local_id = ?";
  }
}
