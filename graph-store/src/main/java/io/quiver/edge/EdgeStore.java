package io.quiver.edge;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.error.Futures;
import io.quiver.error.GraphException;
import io.quiver.id.NodeId;
import io.quiver.node.NodeStore;
import io.quiver.node.TypeChecks;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.sql.Access;
import io.quiver.sql.ShardClient;
import io.quiver.sql.ShardRoute;
import io.quiver.sql.ShardRouter;
import io.quiver.sql.SqlValues;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;

/**
 * Edge storage on the FROM node's shard.
 *
 * <h2>Consistency</h2>
 * An edge write and its change to {@code edge_counts} commit in one transaction, so the count
 * always equals the number of active rows. Sessions run at READ COMMITTED, where a locking read
 * of a missing row locks nothing; so a write first makes sure the row exists and is locked by
 * an {@code INSERT … ON DUPLICATE KEY UPDATE} that changes nothing (a placeholder tombstone when
 * the edge is new), and only then reads the state it will change. Two concurrent adds of one
 * edge therefore serialize on its row, and the second sees the first's result: the count moves
 * once. Adds of different edges never block each other on gap locks ({@link EdgeRows#lock}).
 *
 * <p>Removal keeps the row as a tombstone (state 0): its write time lets copies of an edge
 * written in different orders converge on the newest operation ({@link EdgeRow}). When the edge
 * type has an inverse, the operation's outbox entry commits in the same transaction
 * ({@link InverseLog}), so the inverse is never lost.
 *
 * <h2>Write time</h2>
 * Every write stamps {@code updated_us}, and a client's write on the forward copy always lands:
 * its stamp is the later of now and the stored stamp plus one, so clock skew between servers
 * cannot make a newer request lose to an older one.
 */
public final class EdgeStore {
  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final NodeStore nodes;
  private final InverseLog inverseLog;
  private final EdgeChanges changes;
  private final Clock clock;
  private final java.util.concurrent.atomic.LongAdder readQueries = new java.util.concurrent.atomic.LongAdder();

  /** List and count statements issued since start. */
  public long readQueries() {
    return readQueries.sum();
  }

  public EdgeStore(ShardRouter router, ShardClient client, SchemaSource schemas, NodeStore nodes,
      InverseLog inverseLog, EdgeChanges changes, Clock clock) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.nodes = nodes;
    this.inverseLog = inverseLog;
    this.changes = changes;
    this.clock = clock;
  }

  /** One edge operation's resolved types and route; {@code inverse} is null when none is defined. */
  private record Target(EdgeType type, NodeType fromType, ShardRoute route, EdgeType inverse) {
    String table() {
      return route.table(type.tableName());
    }
  }

  // ---- add ----

  /**
   * Adds the edge, or updates it if present (adding twice keeps one edge). A null sequence keeps
   * an active edge's sequence and gives a new one the write time; null data keeps an active
   * edge's data. The inverse's outbox entry commits in the same transaction.
   */
  public Future<EdgeWrite> add(NodeId from, String typeName, NodeId to, Long sequence, ObjectNode data) {
    return Futures.attempt(() -> planWrite(from, typeName, to, data))
        .compose(target -> client.inTransaction(target.route(),
            connection -> addLocked(connection, target, from, to, sequence, data)))
        .onSuccess(written -> changes.changed(from, typeName));
  }

  private Future<EdgeWrite> addLocked(
      SqlConnection connection, Target target, NodeId from, NodeId to, Long sequence, ObjectNode data) {
    return nodes.existsLocked(connection, target.route(), target.fromType(), from)
        .compose(exists -> exists
            ? EdgeRows.lock(connection, target.table(), from.value(), to.value())
            : Future.failedFuture(GraphException.notFound("no node " + from)))
        .compose(stored -> {
          EdgeRow added = new EdgeRow(
              sequence != null ? sequence : stored.active() ? stored.sequence() : nowUs(),
              EdgeRow.ACTIVE,
              data != null ? SqlValues.toJson(data) : stored.active() ? stored.data() : null,
              nextWriteTime(stored));
          return record(connection, target, from, to, stored, added)
              .map(inverse -> new EdgeWrite(toEdge(target.type(), from, to, added), inverse));
        });
  }

  // ---- remove ----

  /**
   * Removes the edge, leaving a tombstone. Removing an absent edge of a type with an inverse still
   * records a tombstone and tells the inverse: the other copy may hold an add that this removal
   * is newer than. Without an inverse there is nothing to tell, and nothing is written.
   */
  public Future<EdgeWrite> remove(NodeId from, String typeName, NodeId to) {
    return Futures.attempt(() -> planWrite(from, typeName, to, null))
        .compose(target -> client.inTransaction(target.route(),
            connection -> removeLocked(connection, target, from, to)))
        .onSuccess(written -> changes.changed(from, typeName));
  }

  private Future<EdgeWrite> removeLocked(SqlConnection connection, Target target, NodeId from, NodeId to) {
    if (target.inverse() == null) {
      return EdgeRows.readLocked(connection, target.table(), from.value(), to.value())
          .compose(stored -> stored == null || !stored.active()
              ? Future.succeededFuture(new EdgeWrite(null, null))
              : tombstone(connection, target, from, to, stored));
    }
    return EdgeRows.lock(connection, target.table(), from.value(), to.value())
        .compose(stored -> tombstone(connection, target, from, to, stored));
  }

  private Future<EdgeWrite> tombstone(SqlConnection connection, Target target, NodeId from, NodeId to,
      EdgeRow stored) {
    EdgeRow removed = new EdgeRow(stored.sequence(), EdgeRow.DELETED, stored.data(), nextWriteTime(stored));
    return record(connection, target, from, to, stored, removed).map(inverse -> new EdgeWrite(null, inverse));
  }

  /** Writes the forward row, then the inverse's outbox entry, in the caller's transaction. */
  private Future<EdgeWrite.PendingInverse> record(SqlConnection connection, Target target, NodeId from, NodeId to,
      EdgeRow stored, EdgeRow written) {
    Future<Void> forward = EdgeRows.write(connection, target.route(), target.table(), target.type().id(),
        from.value(), to.value(), stored, written);
    boolean selfInverse = target.inverse() != null && target.type().symmetric() && from.equals(to);
    if (target.inverse() == null || selfInverse) {
      return forward.map(done -> null);
    }
    return forward
        .compose(done -> inverseLog.append(connection, target.route(), target.inverse().id(), to, from, written))
        .map(entry -> new EdgeWrite.PendingInverse(target.route().shard(), entry));
  }

  /** A client's write always lands on the copy it writes: later than now, and than what is stored. */
  private long nextWriteTime(EdgeRow stored) {
    return Math.max(nowUs(), stored.updatedUs() + 1);
  }

  private long nowUs() {
    return SqlValues.nowMicros(clock);
  }

  // ---- read ----

  public Future<Edge> get(NodeId from, String typeName, NodeId to) {
    return Futures.attempt(() -> planRead(from, typeName, to))
        .compose(target -> client.query(target.route(),
                "SELECT sequence, state, data, updated_us FROM " + target.table()
                    + " WHERE from_id = ? AND to_id = ? AND state = " + EdgeRow.ACTIVE,
                Tuple.of(from.value(), to.value()))
            .map(rows -> {
              if (rows.size() == 0) {
                throw GraphException.notFound("no " + typeName + " edge from " + from + " to " + to);
              }
              return toEdge(target.type(), from, to, EdgeRows.read(rows.iterator().next()));
            }));
  }

  /**
   * One page of the active edges from a node, by (sequence, to) in the query's order: one range
   * scan of {@code by_sequence}. One row more than the page is read to know whether another
   * page follows.
   */
  public Future<EdgePage> list(NodeId from, String typeName, EdgeQuery query) {
    return Futures.attempt(() -> planRead(from, typeName, null))
        .compose(target -> {
          List<Object> arguments = new ArrayList<>();
          String sql = pageSql(target, from, query, arguments);
          readQueries.increment();
          return client.query(target.route(), sql, Tuple.wrap(arguments))
              .map(rows -> {
                List<Edge> edges = new ArrayList<>();
                for (Row row : rows) {
                  if (edges.size() == query.limit()) {
                    Edge last = edges.get(edges.size() - 1);
                    return new EdgePage(edges, new Cursor(last.sequence(), last.to().value()));
                  }
                  edges.add(toEdge(target.type(), from, new NodeId(row.getLong("to_id")), EdgeRows.read(row)));
                }
                return new EdgePage(edges, null);
              });
        });
  }

  private static String pageSql(Target target, NodeId from, EdgeQuery query, List<Object> arguments) {
    boolean descending = query.order() == Order.DESC;
    StringBuilder sql = new StringBuilder("SELECT to_id, sequence, state, data, updated_us FROM ")
        .append(target.table()).append(" WHERE from_id = ? AND state = ").append(EdgeRow.ACTIVE);
    arguments.add(from.value());
    if (query.minSequence() != null) {
      sql.append(" AND sequence >= ?");
      arguments.add(query.minSequence());
    }
    if (query.maxSequence() != null) {
      sql.append(" AND sequence <= ?");
      arguments.add(query.maxSequence());
    }
    if (query.after() != null) {
      String beyond = descending ? "<" : ">";
      sql.append(" AND (sequence ").append(beyond).append(" ? OR (sequence = ? AND to_id ")
          .append(beyond).append(" ?))");
      arguments.add(query.after().sequence());
      arguments.add(query.after().sequence());
      arguments.add(query.after().to());
    }
    String direction = descending ? " DESC" : " ASC";
    sql.append(" ORDER BY sequence").append(direction).append(", to_id").append(direction)
        .append(" LIMIT ? OFFSET ?");
    arguments.add(query.limit() + 1);
    arguments.add(query.offset());
    return sql.toString();
  }

  public Future<Long> count(NodeId from, String typeName) {
    return Futures.attempt(() -> planRead(from, typeName, null))
        .compose(target -> countQuery(target, from))
        .map(rows -> rows.size() == 0 ? 0L : rows.iterator().next().getLong("count"));
  }

  private Future<io.vertx.sqlclient.RowSet<Row>> countQuery(Target target, NodeId from) {
    readQueries.increment();
    return client.query(target.route(),
        "SELECT count FROM " + target.route().table("edge_counts") + " WHERE from_id = ? AND edge_type = ?",
        Tuple.of(from.value(), target.type().id()));
  }

  // ---- planning ----

  private Target planWrite(NodeId from, String typeName, NodeId to, ObjectNode data) {
    Schema schema = schemas.current();
    Target target = resolve(schema, from, typeName, to, Access.WRITE);
    if (data != null) {
      TypeChecks.requireValid("edge data", target.type().validate(data, TypeChecks.idTypes(schema)));
    }
    return target;
  }

  private Target planRead(NodeId from, String typeName, NodeId to) {
    return resolve(schemas.current(), from, typeName, to, Access.READ);
  }

  /** Checks both ends against the edge type; an ID of the wrong node type is an invalid argument. */
  private Target resolve(Schema schema, NodeId from, String typeName, NodeId to, Access access) {
    EdgeType type = TypeChecks.edgeType(schema, typeName);
    NodeType fromType = TypeChecks.nodeType(schema, from);
    requireEnd(type, "from", type.from(), fromType, from);
    if (to != null) {
      requireEnd(type, "to", type.to(), TypeChecks.nodeType(schema, to), to);
    }
    EdgeType inverse = type.inverse() == null ? null : schema.edgeType(type.inverse()).orElse(null);
    return new Target(type, fromType, router.route(from.shard(), access), inverse);
  }

  private static void requireEnd(EdgeType type, String end, String expected, NodeType actual, NodeId id) {
    if (!actual.name().equals(expected)) {
      throw GraphException.invalid("edge type '" + type.name() + "' runs from " + type.from() + " to "
          + type.to() + ", but the " + end + " ID " + id + " is a " + actual.name());
    }
  }

  private static Edge toEdge(EdgeType type, NodeId from, NodeId to, EdgeRow row) {
    ObjectNode stored = row.data() == null ? SqlValues.emptyObject() : SqlValues.parseObject(row.data());
    return new Edge(from, type.name(), to, row.sequence(), type.withDefaults(stored), SqlValues.fromMicros(row.updatedUs()));
  }
}
