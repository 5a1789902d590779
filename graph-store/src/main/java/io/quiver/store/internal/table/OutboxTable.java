package io.quiver.store.internal.table;

import io.quiver.store.NodeId;
import io.quiver.store.internal.outbox.CascadeOp;
import io.quiver.store.internal.outbox.InverseOp;
import io.quiver.store.internal.outbox.OutboxEntry;
import io.quiver.store.internal.outbox.OutboxOp;
import io.quiver.store.internal.outbox.UniqueReleaseOp;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.sql.InLists;
import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLClient;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.stream.LongStream;

/**
 * {@code outbox}: the work each shard's writes leave for after commit, appended in the write's
 * own transaction so it is never lost. Typed columns rather than a JSON payload, since the
 * drainer reads them on every pass; each entry says its {@link OutboxOp.Kind kind}.
 *
 * <p>Entries are read in the order of the {@code due} index, {@code (parked, next_attempt_us,
 * id)}, never through a cursor over "the highest id seen": an entry whose transaction commits
 * late has a lower id than ones already seen, and such a cursor would skip it for ever. Applied
 * entries are deleted, so reading from the start each time costs only what is pending.
 */
public final class OutboxTable implements ShardTable {
  public static final OutboxTable INSTANCE = new OutboxTable();
  private static final List<String> COLUMNS = List.of("id", "kind", "edge_type", "from_id", "to_id", "state",
      "sequence", "data", "updated_us", "created_us", "attempts", "next_attempt_us", "parked", "last_error");
  private static final String ENTRY = "id, kind, edge_type, from_id, to_id, state, sequence, data, updated_us, attempts";

  private OutboxTable() {}

  @Override
  public String name() {
    return "outbox";
  }

  @Override
  public List<String> columns() {
    return COLUMNS;
  }

  @Override
  public List<String> key() {
    return List.of("id");
  }

  @Override
  public String ddl(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + on(shard) + " ("
        + " id BIGINT UNSIGNED NOT NULL AUTO_INCREMENT PRIMARY KEY,"
        + " kind TINYINT UNSIGNED NOT NULL,"
        + " edge_type SMALLINT UNSIGNED NOT NULL,"
        + " from_id BIGINT UNSIGNED NOT NULL,"
        + " to_id BIGINT UNSIGNED NOT NULL,"
        + " state TINYINT NOT NULL,"
        + " sequence BIGINT NOT NULL,"
        + " data JSON NULL,"
        + " updated_us BIGINT NOT NULL,"
        + " created_us BIGINT NOT NULL,"
        + " attempts INT NOT NULL DEFAULT 0,"
        + " next_attempt_us BIGINT NOT NULL DEFAULT 0,"
        + " parked TINYINT NOT NULL DEFAULT 0,"
        + " last_error VARCHAR(1000) NULL,"
        + " KEY due (parked, next_attempt_us, id)"
        + ") ENGINE=InnoDB";
  }

  /**
   * Brings an outbox created before entries carried their kind up to date: the column is added,
   * and the cascade entries of that layout (edge type 0) are marked as such.
   */
  @Override
  public List<String> upgrades(int shard, Set<String> existingColumns) {
    if (existingColumns.contains("kind")) {
      return List.of();
    }
    return List.of(
        "ALTER TABLE " + on(shard) + " ADD COLUMN kind TINYINT UNSIGNED NOT NULL DEFAULT "
            + OutboxOp.Kind.INVERSE_EDGE.code() + " AFTER id",
        "UPDATE " + on(shard) + " SET kind = " + OutboxOp.Kind.CASCADE_DELETE.code() + " WHERE edge_type = 0");
  }

  /** Appends an entry inside the transaction of the write that needs it; answers its id. */
  public Future<Long> append(SqlClient client, ShardRoute route, OutboxOp op, long nowUs) {
    return client.preparedQuery(appendSql(route.shard())).execute(Tuple.wrap(values(op, nowUs)))
        .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID));
  }

  /** An entry's values as {@link #appendSql} orders them: kind, edge type, from, to, state, sequence, data, write time, creation time. */
  private static List<Object> values(OutboxOp op, long nowUs) {
    List<Object> values = new ArrayList<>(10);
    if (op instanceof InverseOp inverse) {
      EdgeRow row = inverse.row();
      values.addAll(List.of(op.kind().code(), inverse.edgeTypeId(), inverse.from().value(), inverse.to().value(),
          row.state(), row.sequence()));
      values.add(row.data());
      values.add(row.updatedUs());
    } else if (op instanceof UniqueReleaseOp release) {
      values.addAll(List.of(op.kind().code(), release.nodeTypeId(), release.node().value(), release.node().value(), 0,
          release.version()));
      values.add(SqlValues.toJson(SqlValues.emptyObject().put("field", release.field()).put("value", release.key())));
      values.add(0L);
    } else {
      CascadeOp cascade = (CascadeOp) op;
      values.addAll(List.of(op.kind().code(), 0, cascade.node().value(), cascade.node().value(), 0, 0L));
      values.add(null);
      values.add(0L);
    }
    values.add(nowUs);
    return values;
  }

  /**
   * Appends inverse-edge entries of a batch in one statement, inside its transaction, due at
   * {@code dueUs} rather than at once: the batch applies them itself, and the drainer takes over
   * only what is still there by then. Answers the entries' ids.
   *
   * <p>A multi-row INSERT takes consecutive ids under InnoDB's default auto-increment lock modes
   * (0 and 1, MariaDB's default), so the ids are the first one and those after it; one count over
   * that range, by due time and creation time, confirms it. Where the count differs (lock mode 2,
   * MySQL 8's default, may interleave concurrent inserts), the entries are read back by their due
   * time and matched to the operations, so an entry of another writer is never taken for one of
   * these.
   */
  public Future<List<Long>> appendMany(SqlConnection connection, ShardRoute route, List<InverseOp> ops, long nowUs,
      long dueUs) {
    List<Object> arguments = new ArrayList<>(ops.size() * 10);
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(on(route.shard()))
        .append(" (kind, edge_type, from_id, to_id, state, sequence, data, updated_us, created_us, next_attempt_us)")
        .append(" VALUES ");
    for (InverseOp op : ops) {
      sql.append(arguments.isEmpty() ? "" : ", ").append("(?, ?, ?, ?, ?, ?, ?, ?, ?, ?)");
      arguments.addAll(values(op, nowUs));
      arguments.add(dueUs);
    }
    return connection.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments))
        .compose(inserted -> {
          long first = inserted.property(MySQLClient.LAST_INSERTED_ID);
          long last = first + ops.size() - 1;
          return connection.preparedQuery("SELECT COUNT(*) AS n FROM " + on(route.shard())
                  + " WHERE id BETWEEN ? AND ? AND next_attempt_us = ? AND created_us = ?")
              .execute(Tuple.of(first, last, dueUs, nowUs))
              .compose(counted -> counted.iterator().next().getLong("n") == ops.size()
                  ? Future.succeededFuture(LongStream.rangeClosed(first, last).boxed().toList())
                  : readBack(connection, route, ops, first, dueUs));
        });
  }

  /** The ids of a batch's entries, found by due time and matched to its operations. */
  private Future<List<Long>> readBack(SqlConnection connection, ShardRoute route, List<InverseOp> ops, long first,
      long dueUs) {
    Set<InverseOp> wanted = Set.copyOf(ops);
    return connection.preparedQuery("SELECT " + ENTRY + " FROM " + on(route.shard())
            + " WHERE parked = 0 AND next_attempt_us = ? AND id >= ?")
        .execute(Tuple.of(dueUs, first))
        .map(rows -> {
          List<Long> ids = new ArrayList<>(ops.size());
          rows.forEach(row -> {
            OutboxEntry entry = entry(route.shard(), row);
            if (wanted.contains(entry.op())) {
              ids.add(entry.id());
            }
          });
          return ids;
        });
  }

  /**
   * Which of one host's shards have an entry due now, in one statement however many shards: an
   * idle drainer asks this rather than reading each shard's outbox (eight statements a pass for
   * the dev stack's two hosts became two).
   */
  public Future<Set<Integer>> shardsWithDue(SqlClient client, List<ShardRoute> routes, long nowUs) {
    if (routes.isEmpty()) {
      return Future.succeededFuture(Set.of());
    }
    StringBuilder sql = new StringBuilder();
    List<Object> arguments = new ArrayList<>(routes.size() * 2);
    for (ShardRoute route : routes) {
      sql.append(sql.isEmpty() ? "" : " UNION ALL ").append("(SELECT ? AS shard FROM ").append(on(route.shard()))
          .append(" WHERE parked = 0 AND next_attempt_us <= ? LIMIT 1)");
      arguments.add(route.shard());
      arguments.add(nowUs);
    }
    return client.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)).map(rows -> {
      Set<Integer> shards = new java.util.TreeSet<>();
      rows.forEach(row -> shards.add(row.getInteger("shard")));
      return shards;
    });
  }

  /** Entries due now, at most {@code limit}, in due order. */
  public Future<List<OutboxEntry>> due(SqlClient client, ShardRoute route, long nowUs, int limit) {
    String sql = "SELECT " + ENTRY + " FROM " + on(route.shard())
        + " WHERE parked = 0 AND next_attempt_us <= ? ORDER BY next_attempt_us, id LIMIT ?";
    return client.preparedQuery(sql).execute(Tuple.of(nowUs, limit)).map(rows -> {
      List<OutboxEntry> entries = new ArrayList<>();
      rows.forEach(row -> entries.add(entry(route.shard(), row)));
      return entries;
    });
  }

  /** One entry, if it is still there. */
  public Future<OutboxEntry> get(SqlClient client, ShardRoute route, long id) {
    return client.preparedQuery("SELECT " + ENTRY + " FROM " + on(route.shard()) + " WHERE id = ?")
        .execute(Tuple.of(id))
        .map(rows -> rows.size() == 0 ? null : entry(route.shard(), rows.iterator().next()));
  }

  /** Retires an entry whose work is done. */
  public Future<Void> delete(SqlClient client, ShardRoute route, long id) {
    return deleteAll(client, route, List.of(id));
  }

  /**
   * Whether an inverse-edge entry for the copy (from, to) of an edge type waits here, not parked:
   * work that will still write that copy.
   */
  public Future<Boolean> pendingFor(SqlClient client, ShardRoute route, int edgeTypeId, long from, long to) {
    String sql = "SELECT 1 FROM " + on(route.shard()) + " WHERE parked = 0 AND kind = "
        + OutboxOp.Kind.INVERSE_EDGE.code() + " AND edge_type = ? AND from_id = ? AND to_id = ? LIMIT 1";
    return client.preparedQuery(sql).execute(Tuple.of(edgeTypeId, from, to)).map(rows -> rows.size() > 0);
  }

  /** Removes the entries of these kinds for one FROM node that are older than entry {@code id}. */
  public Future<Void> deleteOlder(SqlClient client, ShardRoute route, List<OutboxOp.Kind> kinds, long from, long id) {
    List<Object> arguments = new ArrayList<>();
    String in = InLists.pad(kinds.stream().map(OutboxOp.Kind::code).toList(), arguments);
    arguments.add(from);
    arguments.add(id);
    return client.preparedQuery("DELETE FROM " + on(route.shard()) + " WHERE kind IN (" + in + ") AND from_id = ?"
        + " AND id < ?").execute(Tuple.wrap(arguments)).mapEmpty();
  }

  /**
   * Removes handled entries, in one statement however many: by range when the ids are one run of
   * consecutive ids (a batch's, see {@link #appendMany}), else by list.
   */
  public Future<Void> deleteAll(SqlClient client, ShardRoute route, List<Long> ids) {
    if (ids.isEmpty()) {
      return Future.succeededFuture();
    }
    if (ids.size() > 1 && consecutive(ids)) {
      return client.preparedQuery("DELETE FROM " + on(route.shard()) + " WHERE id BETWEEN ? AND ?")
          .execute(Tuple.of(ids.get(0), ids.get(ids.size() - 1))).mapEmpty();
    }
    List<Object> arguments = new ArrayList<>();
    String sql = "DELETE FROM " + on(route.shard()) + " WHERE id IN (" + InLists.pad(ids, arguments) + ")";
    return client.preparedQuery(sql).execute(Tuple.wrap(arguments)).mapEmpty();
  }

  private static boolean consecutive(List<Long> ids) {
    for (int i = 1; i < ids.size(); i++) {
      if (ids.get(i) != ids.get(i - 1) + 1) {
        return false;
      }
    }
    return true;
  }

  /** Tries the entry again later; {@code counted} attempts count toward parking it. */
  public Future<Void> reschedule(SqlClient client, ShardRoute route, long id, int counted, long nextAttemptUs,
      boolean park, String error) {
    String sql = "UPDATE " + on(route.shard())
        + " SET attempts = attempts + ?, next_attempt_us = ?, parked = ?, last_error = ? WHERE id = ?";
    String trimmed = error == null ? null : error.substring(0, Math.min(error.length(), 1000));
    return client.preparedQuery(sql).execute(Tuple.of(counted, nextAttemptUs, park ? 1 : 0, trimmed, id))
        .mapEmpty();
  }

  /** Every parked entry of a shard due again at {@code nowUs}, its attempts counted afresh; answers how many. */
  public Future<Integer> unpark(SqlClient client, ShardRoute route, long nowUs) {
    String sql = "UPDATE " + on(route.shard()) + " SET parked = 0, attempts = 0, next_attempt_us = ? WHERE parked = 1";
    return client.preparedQuery(sql).execute(Tuple.of(nowUs)).map(rows -> rows.rowCount());
  }

  /**
   * Pending and parked entries of a shard, and the creation time of the oldest pending one.
   *
   * @param oldestCreatedUs null when nothing is pending
   */
  public record Depth(long pending, long parked, Long oldestCreatedUs) {}

  public Future<Depth> depth(SqlClient client, ShardRoute route) {
    String sql = "SELECT SUM(parked = 0) AS pending, SUM(parked = 1) AS parked,"
        + " MIN(CASE WHEN parked = 0 THEN created_us END) AS oldest FROM " + on(route.shard());
    return client.query(sql).execute().map(rows -> {
      Row row = rows.iterator().next();
      Number pending = row.getNumeric("pending");
      Number parked = row.getNumeric("parked");
      return new Depth(pending == null ? 0 : pending.longValue(), parked == null ? 0 : parked.longValue(),
          row.getLong("oldest"));
    });
  }

  /**
   * The append statement: kind, edge type, from, to, state, sequence, data, write time and
   * creation time, in that order; due at once.
   */
  public String appendSql(int shard) {
    return "INSERT INTO " + on(shard)
        + " (kind, edge_type, from_id, to_id, state, sequence, data, updated_us, created_us, next_attempt_us)"
        + " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)";
  }

  /** For JDBC readers: the number of pending ({@code parked = 0}) or parked ({@code 1}) entries. */
  public String countSql(int shard) {
    return "SELECT COUNT(*) FROM " + on(shard) + " WHERE parked = ?";
  }

  private static UniqueReleaseOp release(Row row, NodeId node) {
    var released = SqlValues.parseObject(row.getString("data"));
    return new UniqueReleaseOp(row.getInteger("edge_type"), released.path("field").asText(),
        released.path("value").asText(), node, row.getLong("sequence"));
  }

  private static OutboxEntry entry(int shard, Row row) {
    OutboxOp.Kind kind = OutboxOp.Kind.of(row.getInteger("kind"));
    NodeId from = new NodeId(row.getLong("from_id"));
    OutboxOp op = switch (kind) {
      case INVERSE_EDGE -> new InverseOp(row.getInteger("edge_type"), from, new NodeId(row.getLong("to_id")),
          EdgesTable.row(row));
      case CASCADE_DELETE, CASCADE_ARCHIVE, CASCADE_RESTORE -> new CascadeOp(from, kind);
      case UNIQUE_RELEASE -> release(row, from);
    };
    return new OutboxEntry(row.getLong("id"), shard, op, row.getInteger("attempts"));
  }
}
