package io.quiver.node;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.error.Futures;
import io.quiver.error.GraphException;
import io.quiver.id.NodeId;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.shard.ShardResolver;
import io.quiver.sql.Access;
import io.quiver.sql.InLists;
import io.quiver.sql.ShardClient;
import io.quiver.sql.ShardRoute;
import io.quiver.sql.ShardRouter;
import io.quiver.sql.SqlValues;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLClient;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;

/**
 * Node storage on the reactive MySQL client.
 *
 * <p>A node lives in {@code nodes_<type>} on the shard its ID names; its local ID is the table's
 * AUTO_INCREMENT. Updates are read-modify-write under {@code SELECT … FOR UPDATE} in one
 * transaction: a plain read followed by a write would lose concurrent updates. Stored JSON holds
 * only what clients wrote; defaults are applied on every read and never written back.
 */
public final class NodeStore {
  /** Pass as the expected version to update whatever version is stored. */
  public static final long ANY_VERSION = -1;

  private static final String COLUMNS = "local_id, data, version, created_at, updated_at";

  private final ShardRouter router;
  private final ShardClient client;
  /** Node read statements issued: one per getNode, one per shard of a getNodes. */
  private final java.util.concurrent.atomic.LongAdder readQueries = new java.util.concurrent.atomic.LongAdder();
  private final SchemaSource schemas;
  private final Clock clock;

  public NodeStore(ShardRouter router, ShardClient client, SchemaSource schemas, Clock clock) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.clock = clock;
  }

  // ---- create ----

  private record Creation(NodeType type, ShardRoute route, ObjectNode data, Instant now) {}

  /** Creates a node on {@code colocateWith}'s shard if given, else on a random open, writable shard. */
  public Future<Node> create(String typeName, ObjectNode data, NodeId colocateWith) {
    return Futures.attempt(() -> planCreation(typeName, data, colocateWith)).compose(this::insert);
  }

  private Creation planCreation(String typeName, ObjectNode data, NodeId colocateWith) {
    Schema schema = schemas.current();
    NodeType type = TypeChecks.nodeType(schema, typeName);
    TypeChecks.requireValid("node data", type.validate(data, TypeChecks.idTypes(schema)));
    int shard = colocateWith != null ? colocateWith.shard() : pickShard();
    return new Creation(type, router.route(shard, Access.WRITE), data, SqlValues.now(clock));
  }

  private int pickShard() {
    return router.shardMap().pickShardForNewNode(ThreadLocalRandom.current())
        .orElseThrow(() -> GraphException.unavailable("no open shard accepts new nodes"));
  }

  private Future<Node> insert(Creation creation) {
    String sql = "INSERT INTO " + creation.route().table(creation.type().tableName())
        + " (data, version, created_at, updated_at) VALUES (?, 1, ?, ?)";
    Tuple arguments = Tuple.of(
        SqlValues.toJson(creation.data()),
        SqlValues.toDateTime(creation.now()),
        SqlValues.toDateTime(creation.now()));
    return client.inTransaction(creation.route(), connection -> connection.preparedQuery(sql)
            .execute(arguments)
            .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID))
            .compose(NodeStore::requireLocalIdInRange))
        .map(local -> new Node(
            NodeId.of(creation.route().shard(), creation.type().id(), local),
            creation.type().name(),
            creation.type().withDefaults(creation.data()),
            1,
            creation.now(),
            creation.now()));
  }

  /** A local ID of 2^36 or more cannot be encoded; failing here rolls the insert back. */
  private static Future<Long> requireLocalIdInRange(Long local) {
    if (local == null || local <= 0 || local > NodeId.MAX_LOCAL) {
      return Future.failedFuture(GraphException.of(GraphException.Code.INTERNAL,
          "local ID " + local + " does not fit in " + NodeId.LOCAL_BITS + " bits; the shard's table is full"));
    }
    return Future.succeededFuture(local);
  }

  // ---- read ----

  private record Lookup(NodeType type, ShardRoute route) {}

  public Future<Node> get(NodeId id) {
    return Futures.attempt(() -> lookup(id, Access.READ))
        .compose(lookup -> countedQuery(lookup.route(), selectOne(lookup, ""), Tuple.of(id.local()))
            .map(rows -> toNode(lookup.type(), id, single(rows, id))));
  }

  /**
   * The nodes with these IDs, with one query per shard however many types and IDs it holds:
   * the per-type lookups of a shard go out as one UNION ALL statement.
   */
  public Future<NodeBatch> getMany(List<NodeId> ids) {
    return Futures.attempt(() -> planMultiGet(ids))
        .compose(this::fetchAll)
        .map(found -> assemble(ids, found));
  }

  private record ShardFetch(ShardRoute route, Map<NodeType, List<NodeId>> byType) {}

  private List<ShardFetch> planMultiGet(List<NodeId> ids) {
    Schema schema = schemas.current();
    List<ShardFetch> fetches = new ArrayList<>();
    ShardResolver.groupByShard(ids).forEach((shard, onShard) -> {
      Map<NodeType, List<NodeId>> byType = new LinkedHashMap<>();
      for (NodeId id : onShard) {
        byType.computeIfAbsent(TypeChecks.nodeType(schema, id), type -> new ArrayList<>()).add(id);
      }
      fetches.add(new ShardFetch(router.route(shard, Access.READ), byType));
    });
    return fetches;
  }

  private Future<Map<NodeId, Node>> fetchAll(List<ShardFetch> fetches) {
    List<Future<List<Node>>> pending = new ArrayList<>();
    for (ShardFetch fetch : fetches) {
      pending.add(fetchShard(fetch));
    }
    return Future.all(pending).map(done -> {
      Map<NodeId, Node> found = new HashMap<>();
      for (Future<List<Node>> shard : pending) {
        shard.result().forEach(node -> found.put(node.id(), node));
      }
      return found;
    });
  }

  private Future<List<Node>> fetchShard(ShardFetch fetch) {
    StringBuilder sql = new StringBuilder();
    List<Object> arguments = new ArrayList<>();
    List<NodeType> types = new ArrayList<>(fetch.byType().keySet());
    for (NodeType type : types) {
      if (sql.length() > 0) {
        sql.append(" UNION ALL ");
      }
      List<Long> locals = fetch.byType().get(type).stream().map(NodeId::local).toList();
      sql.append("SELECT ").append(type.id()).append(" AS type_id, ").append(COLUMNS)
          .append(" FROM ").append(fetch.route().table(type.tableName()))
          .append(" WHERE local_id IN (").append(InLists.pad(locals, arguments)).append(')');
    }
    return countedQuery(fetch.route(), sql.toString(), Tuple.wrap(arguments))
        .map(rows -> {
          Schema schema = schemas.current();
          List<Node> nodes = new ArrayList<>();
          for (Row row : rows) {
            NodeType type = schema.nodeType(row.getInteger("type_id")).orElseThrow();
            NodeId id = NodeId.of(fetch.route().shard(), type.id(), row.getLong("local_id"));
            nodes.add(toNode(type, id, row));
          }
          return nodes;
        });
  }

  private static NodeBatch assemble(List<NodeId> ids, Map<NodeId, Node> found) {
    List<Node> nodes = new ArrayList<>();
    List<NodeId> missing = new ArrayList<>();
    for (NodeId id : ids) {
      Node node = found.get(id);
      if (node != null) {
        nodes.add(node);
      } else {
        missing.add(id);
      }
    }
    return new NodeBatch(nodes, missing);
  }

  // ---- update, replace ----

  /** Applies a JSON merge patch to the stored data. */
  public Future<Node> update(NodeId id, ObjectNode patch, long expectedVersion) {
    return rewrite(id, expectedVersion, stored -> MergePatch.apply(stored, patch));
  }

  /** Replaces the stored data whole. */
  public Future<Node> replace(NodeId id, ObjectNode data, long expectedVersion) {
    return rewrite(id, expectedVersion, stored -> data.deepCopy());
  }

  private interface Rewrite {
    ObjectNode apply(ObjectNode stored);
  }

  private Future<Node> rewrite(NodeId id, long expectedVersion, Rewrite rewrite) {
    return Futures.attempt(() -> lookup(id, Access.WRITE))
        .compose(lookup -> client.inTransaction(lookup.route(),
            connection -> rewriteLocked(connection, lookup, id, expectedVersion, rewrite)));
  }

  private Future<Node> rewriteLocked(
      SqlConnection connection, Lookup lookup, NodeId id, long expectedVersion, Rewrite rewrite) {
    return connection.preparedQuery(selectOne(lookup, " FOR UPDATE")).execute(Tuple.of(id.local()))
        .map(rows -> single(rows, id))
        .compose(row -> Futures.attempt(() -> nextVersion(lookup, id, row, expectedVersion, rewrite)))
        .compose(next -> writeVersion(connection, lookup, next));
  }

  private Node nextVersion(Lookup lookup, NodeId id, Row row, long expectedVersion, Rewrite rewrite) {
    long stored = row.getLong("version");
    if (expectedVersion != ANY_VERSION && expectedVersion != stored) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT,
          "node " + id + " is at version " + stored + ", not " + expectedVersion,
          Map.of("currentVersion", stored));
    }
    ObjectNode data = rewrite.apply(SqlValues.parseObject(row.getString("data")));
    Schema schema = schemas.current();
    TypeChecks.requireValid("node data", lookup.type().validate(data, TypeChecks.idTypes(schema)));
    Instant now = SqlValues.now(clock);
    return new Node(id, lookup.type().name(), data, stored + 1,
        SqlValues.fromDateTime(row.getLocalDateTime("created_at")), now);
  }

  private Future<Node> writeVersion(SqlConnection connection, Lookup lookup, Node next) {
    String sql = "UPDATE " + lookup.route().table(lookup.type().tableName())
        + " SET data = ?, version = ?, updated_at = ? WHERE local_id = ?";
    return connection.preparedQuery(sql)
        .execute(Tuple.of(SqlValues.toJson(next.data()), next.version(),
            SqlValues.toDateTime(next.updatedAt()), next.id().local()))
        .map(done -> new Node(next.id(), next.type(), lookup.type().withDefaults(next.data()),
            next.version(), next.createdAt(), next.updatedAt()));
  }

  // ---- delete ----

  /** A further statement that must commit or roll back with a node's deletion. */
  @FunctionalInterface
  public interface AlsoInTransaction {
    Future<?> run(SqlConnection connection, ShardRoute route);

    AlsoInTransaction NOTHING = (connection, route) -> Future.succeededFuture();
  }

  /** Deletes the node's row, and runs {@code also} in the same transaction. */
  public Future<Void> delete(NodeId id, AlsoInTransaction also) {
    return Futures.attempt(() -> lookup(id, Access.WRITE))
        .compose(lookup -> client.inTransaction(lookup.route(), connection -> connection
            .preparedQuery("DELETE FROM " + lookup.route().table(lookup.type().tableName()) + " WHERE local_id = ?")
            .execute(Tuple.of(id.local()))
            .compose(rows -> rows.rowCount() == 0
                ? Future.failedFuture(GraphException.notFound("no node " + id))
                : also.run(connection, lookup.route()))))
        .mapEmpty();
  }

  /** Whether the node exists, locking its row against deletion until the transaction ends. */
  public Future<Boolean> existsLocked(SqlConnection connection, ShardRoute route, NodeType type, NodeId id) {
    String sql = "SELECT 1 FROM " + route.table(type.tableName()) + " WHERE local_id = ? LOCK IN SHARE MODE";
    return connection.preparedQuery(sql).execute(Tuple.of(id.local())).map(rows -> rows.size() > 0);
  }

  // ---- shared ----

  /** Node read statements issued since start. */
  public long readQueries() {
    return readQueries.sum();
  }

  private Future<RowSet<Row>> countedQuery(ShardRoute route, String sql, Tuple arguments) {
    readQueries.increment();
    return client.query(route, sql, arguments);
  }

  private Lookup lookup(NodeId id, Access access) {
    NodeType type = TypeChecks.nodeType(schemas.current(), id);
    return new Lookup(type, router.route(id.shard(), access));
  }

  private static String selectOne(Lookup lookup, String suffix) {
    return "SELECT " + COLUMNS + " FROM " + lookup.route().table(lookup.type().tableName())
        + " WHERE local_id = ?" + suffix;
  }

  private static Row single(RowSet<Row> rows, NodeId id) {
    if (rows.size() == 0) {
      throw GraphException.notFound("no node " + id);
    }
    return rows.iterator().next();
  }

  private static Node toNode(NodeType type, NodeId id, Row row) {
    return new Node(
        id,
        type.name(),
        type.withDefaults(SqlValues.parseObject(row.getString("data"))),
        row.getLong("version"),
        SqlValues.fromDateTime(row.getLocalDateTime("created_at")),
        SqlValues.fromDateTime(row.getLocalDateTime("updated_at")));
  }
}
