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
 * once. Adds of different edges never block each other on gap locks.
 *
 * <p>Removal keeps the row as a tombstone (state 0): its write time lets copies of an edge
 * written in different orders converge on the newest operation.
 *
 * <h2>Write time</h2>
 * Every write stamps {@code updated_us}, and a client's write on the forward copy always lands:
 * its stamp is the later of now and the stored stamp plus one, so clock skew between servers
 * cannot make a newer request lose to an older one.
 */
public final class EdgeStore {
  private static final int ACTIVE = 1;
  private static final int DELETED = 0;
  private static final String COUNTS = "edge_counts";

  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final NodeStore nodes;
  private final Clock clock;

  public EdgeStore(ShardRouter router, ShardClient client, SchemaSource schemas, NodeStore nodes, Clock clock) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.nodes = nodes;
    this.clock = clock;
  }

  /** One edge operation's resolved types and route. */
  private record Target(EdgeType type, NodeType fromType, ShardRoute route) {
    String table() {
      return route.table(type.tableName());
    }
  }

  /** What is stored for one edge, active or not. */
  private record Stored(long sequence, int state, String data, long updatedUs) {
    boolean active() {
      return state == ACTIVE;
    }
  }

  // ---- add ----

  /**
   * Adds the edge, or updates it if present (adding twice keeps one edge). A null sequence keeps
   * an active edge's sequence and gives a new one the write time; null data keeps an active
   * edge's data.
   */
  public Future<Edge> add(NodeId from, String typeName, NodeId to, Long sequence, ObjectNode data) {
    return Futures.attempt(() -> planWrite(from, typeName, to, data))
        .compose(target -> client.inTransaction(target.route(),
            connection -> addLocked(connection, target, from, to, sequence, data)));
  }

  private Future<Edge> addLocked(
      SqlConnection connection, Target target, NodeId from, NodeId to, Long sequence, ObjectNode data) {
    return nodes.existsLocked(connection, target.route(), target.fromType(), from)
        .compose(exists -> exists
            ? lockRow(connection, target, from, to)
            : Future.failedFuture(GraphException.notFound("no node " + from)))
        .compose(stored -> {
          Instant now = SqlValues.now(clock);
          long updatedUs = Math.max(SqlValues.micros(now), stored.updatedUs() + 1);
          long newSequence = sequence != null ? sequence
              : stored.active() ? stored.sequence() : SqlValues.micros(now);
          String newData = data != null ? SqlValues.toJson(data) : stored.active() ? stored.data() : null;
          return writeActive(connection, target, from, to, newSequence, newData, updatedUs)
              .compose(written -> stored.active() ? Future.succeededFuture() : adjustCount(connection, target, from, +1))
              .map(counted -> toEdge(target.type(), from, to, newSequence, newData, updatedUs));
        });
  }

  /** Locks the edge's row, creating a placeholder tombstone if there is none, and reads it. */
  private Future<Stored> lockRow(SqlConnection connection, Target target, NodeId from, NodeId to) {
    String ensure = "INSERT INTO " + target.table()
        + " (from_id, to_id, sequence, state, data, updated_us) VALUES (?, ?, 0, " + DELETED + ", NULL, 0)"
        + " ON DUPLICATE KEY UPDATE updated_us = updated_us";
    String read = "SELECT sequence, state, data, updated_us FROM " + target.table()
        + " WHERE from_id = ? AND to_id = ? FOR UPDATE";
    Tuple key = Tuple.of(from.value(), to.value());
    return connection.preparedQuery(ensure).execute(key)
        .compose(locked -> connection.preparedQuery(read).execute(key))
        .map(rows -> toStored(rows.iterator().next()));
  }

  private Future<Void> writeActive(SqlConnection connection, Target target, NodeId from, NodeId to,
      long sequence, String data, long updatedUs) {
    String sql = "UPDATE " + target.table()
        + " SET sequence = ?, state = " + ACTIVE + ", data = ?, updated_us = ? WHERE from_id = ? AND to_id = ?";
    return connection.preparedQuery(sql)
        .execute(Tuple.of(sequence, data, updatedUs, from.value(), to.value()))
        .mapEmpty();
  }

  // ---- remove ----

  /** Removes the edge if it is active, leaving a tombstone; removing an absent edge does nothing. */
  public Future<Void> remove(NodeId from, String typeName, NodeId to) {
    return Futures.attempt(() -> planWrite(from, typeName, to, null))
        .compose(target -> client.inTransaction(target.route(),
            connection -> removeLocked(connection, target, from, to)));
  }

  private Future<Void> removeLocked(SqlConnection connection, Target target, NodeId from, NodeId to) {
    String read = "SELECT sequence, state, data, updated_us FROM " + target.table()
        + " WHERE from_id = ? AND to_id = ? FOR UPDATE";
    return connection.preparedQuery(read).execute(Tuple.of(from.value(), to.value()))
        .compose(rows -> {
          if (rows.size() == 0) {
            return Future.succeededFuture();
          }
          Stored stored = toStored(rows.iterator().next());
          if (!stored.active()) {
            return Future.succeededFuture();
          }
          long updatedUs = Math.max(SqlValues.micros(SqlValues.now(clock)), stored.updatedUs() + 1);
          String tombstone = "UPDATE " + target.table()
              + " SET state = " + DELETED + ", updated_us = ? WHERE from_id = ? AND to_id = ?";
          return connection.preparedQuery(tombstone).execute(Tuple.of(updatedUs, from.value(), to.value()))
              .compose(done -> adjustCount(connection, target, from, -1));
        });
  }

  private Future<Void> adjustCount(SqlConnection connection, Target target, NodeId from, int delta) {
    String sql = "INSERT INTO " + target.route().table(COUNTS) + " (from_id, edge_type, count) VALUES (?, ?, ?)"
        + " ON DUPLICATE KEY UPDATE count = count + VALUES(count)";
    return connection.preparedQuery(sql).execute(Tuple.of(from.value(), target.type().id(), delta)).mapEmpty();
  }

  // ---- read ----

  public Future<Edge> get(NodeId from, String typeName, NodeId to) {
    return Futures.attempt(() -> planRead(from, typeName, to))
        .compose(target -> client.query(target.route(),
                "SELECT sequence, state, data, updated_us FROM " + target.table()
                    + " WHERE from_id = ? AND to_id = ? AND state = " + ACTIVE,
                Tuple.of(from.value(), to.value()))
            .map(rows -> {
              if (rows.size() == 0) {
                throw GraphException.notFound("no " + typeName + " edge from " + from + " to " + to);
              }
              Stored stored = toStored(rows.iterator().next());
              return toEdge(target.type(), from, to, stored.sequence(), stored.data(), stored.updatedUs());
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
          return client.query(target.route(), sql, Tuple.wrap(arguments))
              .map(rows -> {
                List<Edge> edges = new ArrayList<>();
                for (Row row : rows) {
                  if (edges.size() == query.limit()) {
                    Edge last = edges.get(edges.size() - 1);
                    return new EdgePage(edges, new Cursor(last.sequence(), last.to().value()));
                  }
                  edges.add(toEdge(target.type(), from, new NodeId(row.getLong("to_id")),
                      row.getLong("sequence"), row.getString("data"), row.getLong("updated_us")));
                }
                return new EdgePage(edges, null);
              });
        });
  }

  private static String pageSql(Target target, NodeId from, EdgeQuery query, List<Object> arguments) {
    boolean descending = query.order() == Order.DESC;
    StringBuilder sql = new StringBuilder("SELECT to_id, sequence, data, updated_us FROM ")
        .append(target.table()).append(" WHERE from_id = ? AND state = ").append(ACTIVE);
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
        .compose(target -> client.query(target.route(),
                "SELECT count FROM " + target.route().table(COUNTS) + " WHERE from_id = ? AND edge_type = ?",
                Tuple.of(from.value(), target.type().id()))
            .map(rows -> rows.size() == 0 ? 0L : rows.iterator().next().getLong("count")));
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
    return new Target(type, fromType, router.route(from.shard(), access));
  }

  private static void requireEnd(EdgeType type, String end, String expected, NodeType actual, NodeId id) {
    if (!actual.name().equals(expected)) {
      throw GraphException.invalid("edge type '" + type.name() + "' runs from " + type.from() + " to "
          + type.to() + ", but the " + end + " ID " + id + " is a " + actual.name());
    }
  }

  private static Stored toStored(Row row) {
    return new Stored(row.getLong("sequence"), row.getInteger("state"), row.getString("data"),
        row.getLong("updated_us"));
  }

  private static Edge toEdge(EdgeType type, NodeId from, NodeId to, long sequence, String data, long updatedUs) {
    ObjectNode stored = data == null ? SqlValues.emptyObject() : SqlValues.parseObject(data);
    return new Edge(from, type.name(), to, sequence, type.withDefaults(stored), SqlValues.fromMicros(updatedUs));
  }
}
