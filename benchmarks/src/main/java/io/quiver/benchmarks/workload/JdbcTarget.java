package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.core.JsonGenerator;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.store.NodeId;
import io.quiver.store.TableNames;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Timestamp;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;

/**
 * What a team would write without Quiver: the same operations as SQL over JDBC, against the same
 * shard tables, one connection per worker thread and host, the shard computed from the ID by hand.
 * It keeps counts in step with edges, as Quiver does; it does not validate data or cache.
 *
 * <p>Two shapes. {@code jdbc}: in the load generator's process, the rows read and counted but not
 * rendered, no inverse edges — the cheapest possible baseline. Behind {@link JdbcHttpServer}
 * ({@code jdbc-http}): what a team would deploy, reads rendered as JSON and every edge written in
 * both directions (the inverse in a second transaction on the TO node's shard, written at the same
 * time as the forward copy from another thread; the answer waits for both).
 */
final class JdbcTarget implements Target {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** An answer: a status, and for {@code jdbc-http} the JSON body. */
  record Answer(int status, byte[] body) {}

  private final ShardMap map;
  private final NodeType user;
  private final EdgeType follows;
  private final EdgeType followedBy;
  private final Graph graph;
  private final boolean bothDirections;
  private final ExecutorService workers;
  /** Where {@code jdbc-http} writes inverse copies, beside the forward ones. */
  private final ExecutorService inverseWorkers;
  private final ThreadLocal<Map<String, Connection>> connections = ThreadLocal.withInitial(HashMap::new);

  /**
   * @param graph where the edges it adds and the nodes it creates are noted, for the calls that
   *     follow; null behind {@code jdbc-http}, whose HTTP client notes them from the answers
   * @param bothDirections write each edge's inverse too, and render answers as JSON ({@code jdbc-http})
   */
  JdbcTarget(ShardMap map, Schema schema, Graph graph, int threads, boolean bothDirections) {
    this.map = map;
    this.user = schema.nodeType("user").orElseThrow();
    this.follows = schema.edgeType("follows").orElseThrow();
    this.followedBy = schema.edgeType("followed_by").orElseThrow();
    this.graph = graph;
    this.bothDirections = bothDirections;
    this.workers = Executors.newFixedThreadPool(threads);
    this.inverseWorkers = bothDirections ? Executors.newFixedThreadPool(threads) : null;
  }

  @Override
  public String name() {
    return "jdbc";
  }

  @Override
  public Future<Integer> execute(Call call) {
    return answer(call).map(Answer::status);
  }

  /** Runs the call on a worker thread; a database failure is a 503. */
  Future<Answer> answer(Call call) {
    return Future.fromCompletionStage(on(workers, () -> run(call))).recover(failure -> failure.getCause()
        instanceof SQLException
        ? Future.succeededFuture(new Answer(503, "{\"error\": \"unavailable\"}".getBytes(StandardCharsets.UTF_8)))
        : Future.failedFuture(failure));
  }

  /** Work on JDBC, which may throw. */
  private interface SqlWork<T> {
    T run() throws SQLException;
  }

  /**
   * {@code work} on one of {@code threads}; its {@link SQLException} fails the future as the cause
   * of a {@link CompletionException}.
   */
  private static <T> CompletableFuture<T> on(ExecutorService threads, SqlWork<T> work) {
    return CompletableFuture.supplyAsync(() -> {
      try {
        return work.run();
      } catch (SQLException e) {
        throw new CompletionException(e);
      }
    }, threads);
  }

  private Answer run(Call call) throws SQLException {
    if (!bothDirections) {
      return new Answer(status(call), null);
    }
    NodeId from = new NodeId(call.from());
    return switch (call.operation()) {
      case GET_NODE -> render(from, "SELECT local_id, data, version, created_at, updated_at FROM "
          + TableNames.nodes(from.shard(), user) + " WHERE local_id = ?", Shape.NODE, from.local());
      case GET_EDGES -> render(from, "SELECT to_id, sequence, data, updated_us FROM "
          + TableNames.edges(from.shard(), follows)
          + " WHERE from_id = ? AND state = 1 ORDER BY sequence DESC, to_id DESC LIMIT 51", Shape.EDGES, from.value());
      case COUNT_EDGES -> render(from, "SELECT count FROM " + TableNames.counts(from.shard())
          + " WHERE from_id = ? AND edge_type = " + follows.id(), Shape.COUNT, from.value());
      case GET_EDGE, POINT_READ -> render(from, "SELECT to_id, sequence, data, updated_us FROM "
          + TableNames.edges(from.shard(), follows) + " WHERE from_id = ? AND to_id = ? AND state = 1", Shape.EDGE,
          from.value(), call.to());
      case BATCH_READ -> batch(call, true);
      case ADD_NODE -> {
        long id = addNode(call.text());
        yield new Answer(201, ("{\"id\": \"" + id + "\"}").getBytes(StandardCharsets.UTF_8));
      }
      default -> new Answer(status(call), null);
    };
  }

  private int status(Call call) throws SQLException {
    NodeId from = new NodeId(call.from());
    return switch (call.operation()) {
      case GET_NODE -> query(from, "SELECT data, version, created_at, updated_at FROM " + TableNames.nodes(from.shard(), user)
          + " WHERE local_id = ?", from.local());
      case GET_EDGES -> query(from, "SELECT to_id, sequence, data, updated_us FROM " + TableNames.edges(from.shard(), follows)
          + " WHERE from_id = ? AND state = 1 ORDER BY sequence DESC, to_id DESC LIMIT 51", from.value());
      case COUNT_EDGES -> query(from, "SELECT count FROM " + TableNames.counts(from.shard())
          + " WHERE from_id = ? AND edge_type = " + follows.id(), from.value());
      case GET_EDGE, POINT_READ -> query(from, "SELECT sequence, data, updated_us FROM "
          + TableNames.edges(from.shard(), follows) + " WHERE from_id = ? AND to_id = ? AND state = 1", from.value(),
          call.to());
      case BATCH_READ -> batch(call, false).status();
      case ADD_EDGE, UPDATE_EDGE -> addEdge(from, call);
      case REMOVE_EDGE -> removeEdge(from, call.to());
      case UPDATE_NODE -> updateNode(from, call.text());
      case ADD_NODE -> {
        addNode(call.text());
        yield 201;
      }
      case DELETE_NODE -> update(from, "DELETE FROM " + TableNames.nodes(from.shard(), user) + " WHERE local_id = ?", from.local())
          == 1 ? 204 : 404;
    };
  }

  /** Work on one connection in one transaction: commit if it returns, roll back if it throws. */
  private interface Work {
    int run(Connection connection) throws SQLException;
  }

  private int inTransaction(NodeId routing, Work work) throws SQLException {
    Connection connection = transactional(routing);
    try {
      int status = work.run(connection);
      connection.commit();
      return status;
    } catch (SQLException | RuntimeException e) {
      connection.rollback();
      throw e;
    }
  }

  private int addEdge(NodeId from, Call call) throws SQLException {
    long now = System.currentTimeMillis() * 1000;
    long sequence = call.operation() == Operation.UPDATE_EDGE ? call.sequence() : now;
    String data = call.operation() == Operation.UPDATE_EDGE ? "{\"note\": \"" + call.text() + "\"}" : null;
    int status = bothCopies(() -> writeEdge(follows, from, call.to(), sequence, data, now),
        () -> writeEdge(followedBy, new NodeId(call.to()), from.value(), sequence, data, now));
    if (graph != null) {
      graph.edge(from.value(), call.to());
    }
    return status;
  }

  /**
   * The forward copy's write, and with {@link #bothDirections} the inverse copy's at the same time
   * on another thread (its own connections, its own transaction): the answer waits for both, as a
   * service that promises both copies would, but not for one after the other.
   */
  private int bothCopies(SqlWork<Integer> forward, SqlWork<Integer> inverse) throws SQLException {
    if (!bothDirections) {
      return forward.run();
    }
    CompletableFuture<Integer> other = on(inverseWorkers, inverse);
    int status = forward.run();
    try {
      other.join();
    } catch (CompletionException e) {
      throw e.getCause() instanceof SQLException sql ? sql : new SQLException(e.getCause());
    }
    return status;
  }

  /**
   * Adds or updates one copy of an edge, moving its list's count if it became active: one upsert,
   * no lock taken before it. The upsert locks the row itself; whether it revived a removed edge is
   * noted in a session variable by the update clause (which reads the row's old state), so a new
   * edge costs the upsert and the count, an existing one the upsert and a count update that
   * changes nothing unless the edge was removed.
   */
  private int writeEdge(EdgeType type, NodeId from, long to, long sequence, String data, long now)
      throws SQLException {
    return inTransaction(from, connection -> {
      int changed;
      try (PreparedStatement upsert = connection.prepareStatement("INSERT INTO " + TableNames.edges(from.shard(), type)
          + " (from_id, to_id, sequence, state, data, updated_us) VALUES (?, ?, ?, 1, ?, ?)"
          + " ON DUPLICATE KEY UPDATE updated_us = IF((@revived := (state = 0)), VALUES(updated_us), VALUES(updated_us)),"
          + " sequence = VALUES(sequence), state = 1, data = VALUES(data)")) {
        upsert.setLong(1, from.value());
        upsert.setLong(2, to);
        upsert.setLong(3, sequence);
        upsert.setString(4, data);
        upsert.setLong(5, now);
        // With useAffectedRows: 1 inserted, 2 updated.
        changed = upsert.executeUpdate();
      }
      String counted = changed == 1
          ? "INSERT INTO " + TableNames.counts(from.shard()) + " (from_id, edge_type, count) VALUES (?, " + type.id()
              + ", 1) ON DUPLICATE KEY UPDATE count = count + 1"
          : "UPDATE " + TableNames.counts(from.shard()) + " SET count = count + 1 WHERE from_id = ? AND edge_type = "
              + type.id() + " AND @revived";
      try (PreparedStatement count = connection.prepareStatement(counted)) {
        count.setLong(1, from.value());
        count.executeUpdate();
      }
      return 200;
    });
  }

  private int removeEdge(NodeId from, long to) throws SQLException {
    return bothCopies(() -> removeCopy(follows, from, to), () -> removeCopy(followedBy, new NodeId(to), from.value()));
  }

  /** Turns one copy of an edge into a tombstone, moving its list's count if it was active. */
  private int removeCopy(EdgeType type, NodeId from, long to) throws SQLException {
    return inTransaction(from, connection -> {
      int removed;
      try (PreparedStatement tombstone = connection.prepareStatement("UPDATE " + TableNames.edges(from.shard(), type)
          + " SET state = 0, updated_us = ? WHERE from_id = ? AND to_id = ? AND state = 1")) {
        tombstone.setLong(1, System.currentTimeMillis() * 1000);
        tombstone.setLong(2, from.value());
        tombstone.setLong(3, to);
        removed = tombstone.executeUpdate();
      }
      if (removed == 1) {
        try (PreparedStatement count = connection.prepareStatement("UPDATE " + TableNames.counts(from.shard())
            + " SET count = count - 1 WHERE from_id = ? AND edge_type = " + type.id())) {
          count.setLong(1, from.value());
          count.executeUpdate();
        }
      }
      return 204;
    });
  }

  /** Merges the bio into the node's JSON in one statement, as a team on MariaDB would ({@code JSON_SET}). */
  private int updateNode(NodeId id, String bio) throws SQLException {
    return inTransaction(id, connection -> {
      try (PreparedStatement write = connection.prepareStatement("UPDATE " + TableNames.nodes(id.shard(), user)
          + " SET data = JSON_SET(data, '$.bio', ?), version = version + 1, updated_at = ? WHERE local_id = ?")) {
        write.setString(1, bio);
        write.setTimestamp(2, new Timestamp(System.currentTimeMillis()));
        write.setLong(3, id.local());
        return write.executeUpdate() == 1 ? 200 : 404;
      }
    });
  }

  private long addNode(String name) throws SQLException {
    int shard = map.allShards().get(ThreadLocalRandom.current().nextInt(map.allShards().size()));
    NodeId anchor = NodeId.of(shard, user.id(), 1);
    try (PreparedStatement insert = connection(anchor).prepareStatement("INSERT INTO " + TableNames.nodes(anchor.shard(), user)
        + " (data, version, created_at, updated_at) VALUES (?, 1, NOW(6), NOW(6))", Statement.RETURN_GENERATED_KEYS)) {
      insert.setString(1, "{\"name\": \"" + name + "\"}");
      insert.executeUpdate();
      try (ResultSet keys = insert.getGeneratedKeys()) {
        keys.next();
        long id = NodeId.of(shard, user.id(), keys.getLong(1)).value();
        if (graph != null) {
          graph.created(id);
        }
        return id;
      }
    }
  }

  /** What a read answers: a node, a page of edges, one edge or a count. */
  private enum Shape { NODE, EDGES, EDGE, COUNT }

  /** Runs a read and writes its rows as the API's JSON (the data column as stored). */
  private Answer render(NodeId routing, String sql, Shape shape, long... arguments) throws SQLException {
    try (PreparedStatement statement = connection(routing).prepareStatement(sql)) {
      for (int i = 0; i < arguments.length; i++) {
        statement.setLong(i + 1, arguments[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        ByteArrayOutputStream bytes = new ByteArrayOutputStream(512);
        boolean found = false;
        try (JsonGenerator out = MAPPER.getFactory().createGenerator(bytes)) {
          if (shape == Shape.EDGES) {
            out.writeStartObject();
            out.writeArrayFieldStart("edges");
          }
          while (rows.next()) {
            found = true;
            switch (shape) {
              case NODE -> {
                out.writeStartObject();
                out.writeStringField("id", Long.toString(routing.value()));
                out.writeStringField("type", "user");
                out.writeFieldName("data");
                out.writeRawValue(rows.getString("data"));
                out.writeNumberField("version", rows.getLong("version"));
                out.writeStringField("createdAt", rows.getTimestamp("created_at").toInstant().toString());
                out.writeStringField("updatedAt", rows.getTimestamp("updated_at").toInstant().toString());
                out.writeEndObject();
              }
              case EDGES, EDGE -> writeEdge(out, routing.value(), rows);
              case COUNT -> {
                out.writeStartObject();
                out.writeNumberField("count", rows.getLong("count"));
                out.writeEndObject();
              }
            }
          }
          if (shape == Shape.EDGES) {
            out.writeEndArray();
            out.writeEndObject();
          } else if (shape == Shape.COUNT && !found) {
            out.writeStartObject();
            out.writeNumberField("count", 0);
            out.writeEndObject();
          }
        } catch (java.io.IOException e) {
          throw new SQLException("cannot render", e);
        }
        boolean answered = found || shape == Shape.EDGES || shape == Shape.COUNT;
        return new Answer(answered ? 200 : 404, bytes.toByteArray());
      }
    }
  }

  /** One edge row (to_id, sequence, data, updated_us) as the API's JSON. */
  private static void writeEdge(JsonGenerator out, long from, ResultSet rows) throws SQLException, java.io.IOException {
    out.writeStartObject();
    out.writeStringField("from", Long.toString(from));
    out.writeStringField("type", "follows");
    out.writeStringField("to", Long.toString(rows.getLong("to_id")));
    out.writeNumberField("sequence", rows.getLong("sequence"));
    String data = rows.getString("data");
    out.writeFieldName("data");
    out.writeRawValue(data == null ? "{}" : data);
    out.writeStringField("updatedAt", Instant.EPOCH.plus(rows.getLong("updated_us"), ChronoUnit.MICROS).toString());
    out.writeEndObject();
  }

  /**
   * A batch read: the sources' edges to the call's target, one statement per shard of the sources
   * (as Quiver reads what its cache lacks); rendered as {@code {"edges": [...]}} when asked.
   */
  private Answer batch(Call call, boolean rendered) throws SQLException {
    Map<Long, byte[]> found = readEdgesTo(call.sources(), call.to(), rendered);
    return new Answer(200, rendered ? edgesObject(found.values()) : null);
  }

  /** {@code {"edges": [...]}} of edges each already rendered. */
  static byte[] edgesObject(java.util.Collection<byte[]> edges) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream(16 + edges.size() * 160);
    bytes.writeBytes("{\"edges\": [".getBytes(StandardCharsets.UTF_8));
    boolean first = true;
    for (byte[] edge : edges) {
      if (!first) {
        bytes.write(',');
      }
      bytes.writeBytes(edge);
      first = false;
    }
    bytes.writeBytes("]}".getBytes(StandardCharsets.UTF_8));
    return bytes.toByteArray();
  }

  /** The sources' edges to {@code to}, each rendered alone, on a worker thread: what a look-aside cache fills its misses with. */
  Future<Map<Long, byte[]>> edgesTo(java.util.List<Long> sources, long to) {
    return Future.fromCompletionStage(on(workers, () -> readEdgesTo(sources, to, true)));
  }

  /** Each source's active edge to {@code to}, by source, rendered when asked (empty bytes otherwise); one statement per shard. */
  private Map<Long, byte[]> readEdgesTo(java.util.List<Long> sources, long to, boolean rendered) throws SQLException {
    Map<Integer, java.util.List<Long>> byShard = new java.util.TreeMap<>();
    sources.forEach(source -> byShard.computeIfAbsent(new NodeId(source).shard(), s -> new java.util.ArrayList<>())
        .add(source));
    Map<Long, byte[]> found = new java.util.LinkedHashMap<>();
    for (java.util.List<Long> inShard : byShard.values()) {
      NodeId routing = new NodeId(inShard.get(0));
      String marks = String.join(", ", java.util.Collections.nCopies(inShard.size(), "?"));
      try (PreparedStatement statement = connection(routing).prepareStatement("SELECT from_id, to_id, sequence, data,"
          + " updated_us FROM " + TableNames.edges(routing.shard(), follows) + " WHERE to_id = ? AND from_id IN ("
          + marks + ") AND state = 1")) {
        statement.setLong(1, to);
        for (int i = 0; i < inShard.size(); i++) {
          statement.setLong(i + 2, inShard.get(i));
        }
        try (ResultSet rows = statement.executeQuery()) {
          while (rows.next()) {
            long from = rows.getLong("from_id");
            if (!rendered) {
              found.put(from, new byte[0]);
              continue;
            }
            ByteArrayOutputStream bytes = new ByteArrayOutputStream(160);
            try (JsonGenerator out = MAPPER.getFactory().createGenerator(bytes)) {
              writeEdge(out, from, rows);
            } catch (java.io.IOException e) {
              throw new SQLException("cannot render", e);
            }
            found.put(from, bytes.toByteArray());
          }
        }
      }
    }
    return found;
  }

  private int query(NodeId routing, String sql, long... arguments) throws SQLException {
    try (PreparedStatement statement = connection(routing).prepareStatement(sql)) {
      for (int i = 0; i < arguments.length; i++) {
        statement.setLong(i + 1, arguments[i]);
      }
      try (ResultSet rows = statement.executeQuery()) {
        int count = 0;
        while (rows.next()) {
          count++;
        }
        return count > 0 ? 200 : 404;
      }
    }
  }

  private int update(NodeId routing, String sql, long argument) throws SQLException {
    try (PreparedStatement statement = connection(routing).prepareStatement(sql)) {
      statement.setLong(1, argument);
      return statement.executeUpdate();
    }
  }


  /** This thread's connection to the host of {@code routing}'s shard for reads: autocommit on, each read its own. */
  private Connection connection(NodeId routing) throws SQLException {
    return connection(routing, true);
  }

  /**
   * This thread's connection to the host of {@code routing}'s shard for transactions: autocommit
   * off for good, so a transaction is its statements and COMMIT — no {@code SET autocommit} before
   * and after each (toggling it sent both, useLocalSessionState or not: two statements of each copy's
   * five), and no BEGIN. Reads keep a connection of their own, whose autocommit leaves no
   * transaction open between them.
   */
  private Connection transactional(NodeId routing) throws SQLException {
    return connection(routing, false);
  }

  private Connection connection(NodeId routing, boolean autoCommit) throws SQLException {
    Host host = map.hosts().get(map.rangeOf(routing.shard()).orElseThrow().host());
    Map<String, Connection> mine = connections.get();
    String key = autoCommit ? host.name() : host.name() + "/transactions";
    Connection connection = mine.get(key);
    if (connection == null) {
      connection = DriverManager.getConnection("jdbc:mysql://" + host.primary()
          // useLocalSessionState: the driver trusts its own record of the session's autocommit and
          // isolation instead of asking the server;
          // useAffectedRows: an upsert says whether it inserted (1) or updated (2);
          // prepStmtCacheSqlLimit: statements up to 2 KiB kept prepared (the default, 256
          // characters, left the edge upsert out, prepared and closed again on every write).
          + "/?useServerPrepStmts=true&cachePrepStmts=true&prepStmtCacheSize=256&prepStmtCacheSqlLimit=2048"
          + "&useLocalSessionState=true&useAffectedRows=true", "root", "");
      connection.setAutoCommit(autoCommit);
      mine.put(key, connection);
    }
    return connection;
  }

  @Override
  public void close() {
    workers.shutdownNow();
    if (inverseWorkers != null) {
      inverseWorkers.shutdownNow();
    }
  }
}
