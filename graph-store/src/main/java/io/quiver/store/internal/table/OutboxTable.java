package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.InLists;
import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.mysqlclient.MySQLClient;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.LongStream;

/**
 * {@code outbox}: the work each shard's writes leave for after commit, appended in the write's
 * own transaction so it is never lost. Typed columns rather than a JSON payload, since the
 * drainer reads them on every pass; each entry says its kind by a code. This table knows columns
 * ({@link Columns}), not kinds: each kind of work says how it is stored in them and read back
 * ({@code io.quiver.store.internal.outbox.OutboxOp}), so a new kind never touches this class.
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
   * One entry's columns, whatever its kind. The columns are those of an edge copy, the kind
   * written and read most; another kind keeps what it needs in them as its own class says.
   *
   * @param kind the kind's code
   * @param data JSON text, or null
   */
  public record Columns(int kind, int typeId, long from, long to, int state, long sequence, String data,
      long updatedUs) {}

  /** An entry as stored: its id, its columns, and how often it has failed. */
  public record Stored(long id, Columns columns, int attempts) {}

  /** The code every entry of the layout before kinds was given: that of the inverse-edge kind, which never changes. */
  private static final int FIRST_KIND = 1;
  /** The code of the cascade deletion, which that layout marked by edge type 0. */
  private static final int CASCADE_DELETE_KIND = 2;

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
        "ALTER TABLE " + on(shard) + " ADD COLUMN kind TINYINT UNSIGNED NOT NULL DEFAULT " + FIRST_KIND + " AFTER id",
        "UPDATE " + on(shard) + " SET kind = " + CASCADE_DELETE_KIND + " WHERE edge_type = 0");
  }

  /** Appends an entry inside the transaction of the write that needs it; answers its id. */
  public Future<Long> append(SqlClient client, ShardRoute route, Columns entry, long nowUs) {
    return client.preparedQuery(appendSql(route.shard())).execute(Tuple.wrap(values(entry, nowUs)))
        .map(rows -> rows.property(MySQLClient.LAST_INSERTED_ID));
  }

  /** An entry's values as {@link #appendSql} orders them: kind, type, from, to, state, sequence, data, write time, creation time. */
  private static List<Object> values(Columns entry, long nowUs) {
    List<Object> values = new ArrayList<>(10);
    values.addAll(List.of(entry.kind(), entry.typeId(), entry.from(), entry.to(), entry.state(), entry.sequence()));
    values.add(entry.data());
    values.add(entry.updatedUs());
    values.add(nowUs);
    return values;
  }

  /**
   * Appends the entries of a batch (its inverse edges) in one statement, inside its transaction, due at
   * {@code dueUs} rather than at once: the batch applies them itself, and the drainer takes over
   * only what is still there by then. Answers the entries' ids.
   *
   * <p>A multi-row INSERT takes consecutive ids under InnoDB's default auto-increment lock modes
   * (0 and 1, MariaDB's default), so the ids are the first one and those after it; one count over
   * that range, by due time and creation time, confirms it. Where the count differs (lock mode 2,
   * MySQL 8's default, may interleave concurrent inserts), the entries are read back by their due
   * time and matched to the entries, so an entry of another writer is never taken for one of
   * these.
   */
  public Future<List<Long>> appendMany(SqlConnection connection, ShardRoute route, List<Columns> ops, long nowUs,
      long dueUs) {
    List<Object> arguments = new ArrayList<>(ops.size() * 10);
    StringBuilder sql = new StringBuilder("INSERT INTO ").append(on(route.shard()))
        .append(" (kind, edge_type, from_id, to_id, state, sequence, data, updated_us, created_us, next_attempt_us)")
        .append(" VALUES ");
    for (Columns op : ops) {
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

  /** The ids of a batch's entries, found by due time and matched to its entries' columns. */
  private Future<List<Long>> readBack(SqlConnection connection, ShardRoute route, List<Columns> ops, long first,
      long dueUs) {
    Set<Columns> wanted = Set.copyOf(ops);
    return connection.preparedQuery("SELECT " + ENTRY + " FROM " + on(route.shard())
            + " WHERE parked = 0 AND next_attempt_us = ? AND id >= ?")
        .execute(Tuple.of(dueUs, first))
        .map(rows -> {
          List<Long> ids = new ArrayList<>(ops.size());
          rows.forEach(row -> {
            Stored entry = stored(row);
            if (wanted.contains(entry.columns())) {
              ids.add(entry.id());
            }
          });
          return ids;
        });
  }

  /** What a drainer's pass finds to do on a host's shards: those with entries due, and those with changes to number. */
  public record Work(Set<Integer> due, Set<Integer> unnumbered) {
    public static final Work NONE = new Work(Set.of(), Set.of());
  }

  /**
   * Which of one host's shards have an entry due now, and which hold logged changes without a
   * position ({@link ChangesTable#shardsToSequence}), in one statement however many shards: all
   * an idle drainer's pass asks of its host (issue 37: eight statements a pass for the dev stack's
   * two hosts became two, then the change log's sequencer asked as many again; one does for both).
   */
  public Future<Work> shardsWithWork(SqlClient client, List<ShardRoute> routes, long nowUs) {
    if (routes.isEmpty()) {
      return Future.succeededFuture(Work.NONE);
    }
    List<Object> arguments = new ArrayList<>(routes.size() * 3);
    String sql = shardsHoldingQuery(routes, "parked = 0 AND next_attempt_us <= ?", List.of(nowUs), ", 0 AS log",
        arguments) + " UNION ALL " + ChangesTable.INSTANCE.unnumberedQuery(routes, ", 1 AS log", arguments);
    return client.preparedQuery(sql).execute(Tuple.wrap(arguments)).map(rows -> {
      Set<Integer> due = new java.util.TreeSet<>();
      Set<Integer> unnumbered = new java.util.TreeSet<>();
      rows.forEach(row -> (row.getInteger("log") == 0 ? due : unnumbered).add(row.getInteger("shard")));
      return new Work(due, unnumbered);
    });
  }

  /**
   * The entries due now on each of {@code routes}' shards, at most {@code limit} a shard, each
   * shard's in due order ({@code next_attempt_us}, then id: a rescheduled entry steps aside): one
   * statement for every shard of a host, each part a range of its {@code due} index. A shard with
   * nothing due is left out of the answer. (One statement per shard until issue 37's pass census:
   * four reads a busy pass on a host of four shards, where one does.)
   */
  public Future<Map<Integer, List<Stored>>> dueOn(SqlClient client, List<ShardRoute> routes, long nowUs, int limit) {
    if (routes.isEmpty()) {
      return Future.succeededFuture(Map.of());
    }
    List<Object> arguments = new ArrayList<>(routes.size() * 3);
    String sql = eachShardQuery(routes, ", " + ENTRY + ", next_attempt_us",
        "WHERE parked = 0 AND next_attempt_us <= ? ORDER BY next_attempt_us, id LIMIT ?", List.of(nowUs, limit),
        arguments);
    return client.preparedQuery(sql).execute(Tuple.wrap(arguments)).map(rows -> {
      // The parts' orders hold within each part; that the parts come one after another unmixed is
      // MariaDB's habit, not SQL's promise, so the rows are put in order here.
      List<Row> read = new ArrayList<>(rows.size());
      rows.forEach(read::add);
      read.sort(SHARD_THEN_DUE);
      Map<Integer, List<Stored>> due = new TreeMap<>();
      read.forEach(row -> due.computeIfAbsent(row.getInteger("shard"), shard -> new ArrayList<>()).add(stored(row)));
      return due;
    });
  }

  /** {@link #dueOn}'s rows by shard, then in the {@code due} index's order (due time, then id). */
  private static final Comparator<Row> SHARD_THEN_DUE = Comparator.<Row>comparingInt(row -> row.getInteger("shard"))
      .thenComparingLong(row -> row.getLong("next_attempt_us")).thenComparingLong(row -> row.getLong("id"));

  /** One entry, if it is still there; null when it is not. */
  public Future<Stored> get(SqlClient client, ShardRoute route, long id) {
    return client.preparedQuery("SELECT " + ENTRY + " FROM " + on(route.shard()) + " WHERE id = ?")
        .execute(Tuple.of(id))
        .map(rows -> rows.size() == 0 ? null : stored(rows.iterator().next()));
  }

  /** Retires an entry whose work is done. */
  public Future<Void> delete(SqlClient client, ShardRoute route, long id) {
    return deleteAll(client, route, List.of(id));
  }

  /**
   * Whether an entry of {@code kind} for (type, from, to) waits here, not parked: for the
   * inverse-edge kind, work that will still write that copy.
   */
  public Future<Boolean> pendingFor(SqlClient client, ShardRoute route, int kind, int typeId, long from, long to) {
    String sql = "SELECT 1 FROM " + on(route.shard())
        + " WHERE parked = 0 AND kind = ? AND edge_type = ? AND from_id = ? AND to_id = ? LIMIT 1";
    return client.preparedQuery(sql).execute(Tuple.of(kind, typeId, from, to)).map(rows -> rows.size() > 0);
  }

  /** Removes the entries of these kinds (codes) for one FROM node that are older than entry {@code id}. */
  public Future<Void> deleteOlder(SqlClient client, ShardRoute route, List<Integer> kinds, long from, long id) {
    List<Object> arguments = new ArrayList<>();
    String in = InLists.pad(kinds, arguments);
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

  private static Stored stored(Row row) {
    Columns columns = new Columns(row.getInteger("kind"), row.getInteger("edge_type"), row.getLong("from_id"),
        row.getLong("to_id"), row.getInteger("state"), row.getLong("sequence"), row.getString("data"),
        row.getLong("updated_us"));
    return new Stored(row.getLong("id"), columns, row.getInteger("attempts"));
  }
}
