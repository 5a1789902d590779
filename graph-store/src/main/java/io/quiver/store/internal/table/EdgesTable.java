package io.quiver.store.internal.table;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgeId;
import io.quiver.store.EdgeListId;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import io.quiver.store.Order;
import io.quiver.store.internal.sql.InLists;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.SqlErrors;
import io.quiver.store.internal.sql.SqlValues;
import io.vertx.core.Future;
import io.vertx.sqlclient.DatabaseException;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * {@code edges_<type>}: one edge type's mapping table on a FROM node's shard, one row per (from,
 * to), tombstones included. Every statement that touches it is here: the locked write path
 * shared by client writes and the inverse applier, the page and point reads, the key-order scan
 * and mirror lookup of repair, and the collection of old tombstones.
 *
 * <h2>Locking at READ COMMITTED</h2>
 * A write reads its row with a locking read ({@link #readLocked}). Two writers of a stored edge
 * serialize on its row; writers of different edges never meet on a gap lock. A locking read of a
 * missing row locks nothing at READ COMMITTED, so two writers of one new edge both find it
 * absent: the second one's INSERT waits for the first's and then fails on the duplicate key,
 * which fails its transaction as ABORTED, and {@code ShardClient} runs it again, finding the row
 * — as the bulk import and the inverses always did. Until issue 37 a write first upserted a
 * placeholder tombstone so that there was a row to lock: a statement more on every write, and
 * every new edge written twice with both its secondary keys.
 *
 * <h2>Deciding in SQL</h2>
 * A client's add without a condition and a removal need nothing of the stored row before they
 * write: what they keep of it follows from it by a fixed rule. On MariaDB each is one upsert
 * ({@link #upsertFrom}, {@link #upsertTombstone}) that applies the rule in its {@code ON DUPLICATE
 * KEY UPDATE}, keeps the old row's columns in session variables and answers old and new rows
 * with {@code RETURNING}: the locking read is gone, and a new edge's racing writers no longer
 * fail on its key (the second insert waits for the first, then updates). The count, the log and
 * the outbox are decided in Java on what it answered, as before.
 *
 * <h2>Pipelined</h2>
 * Statements of a write that do not need each other's answers are sent together on the
 * transaction's connection (the MySQL protocol runs them in order; the client pipelines up to
 * {@code mysql.pipeliningLimit}): the row's write and its count's are one round trip. The FROM
 * node's share lock and the row's locking read are one statement ({@link #readLockedFrom}), as a
 * batch's are ({@link #readLockedManyFrom}).
 */
public final class EdgesTable implements ShardTable {
  private static final List<String> COLUMNS = List.of("from_id", "to_id", "sequence", "state", "data", "updated_us");
  private static final String ROW = "sequence, state, data, updated_us";

  private final EdgeType type;

  public EdgesTable(EdgeType type) {
    this.type = type;
  }

  public EdgeType type() {
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
    return List.of("from_id", "to_id");
  }

  @Override
  public String ddl(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + on(shard) + " ("
        + " from_id BIGINT UNSIGNED NOT NULL,"
        + " to_id BIGINT UNSIGNED NOT NULL,"
        + " sequence BIGINT NOT NULL,"
        + " state TINYINT NOT NULL,"
        + " data JSON NULL,"
        + " updated_us BIGINT NOT NULL,"
        + " PRIMARY KEY (from_id, to_id),"
        + " KEY by_sequence (from_id, state, sequence, to_id),"
        // For collecting tombstones past their grace period without a full scan.
        + " KEY tombstones (state, updated_us)"
        + ") ENGINE=InnoDB";
  }

  // ---- the write path, inside a transaction ----

  /**
   * The edge's row, locked; null when there is none, which at READ COMMITTED locks nothing. A
   * write that finds no row inserts one ({@link #write}); should a concurrent writer insert it
   * first, the insert fails as ABORTED and the transaction runs again, finding the row. A
   * placeholder inserted first, to have a row to lock, would make every new edge a write of its
   * row and its two secondary keys and then a rewrite of all three, and cost a statement more
   * to every write (issue 37): the bulk import and the inverses never wrote one.
   */
  public Future<EdgeRow> readLocked(SqlConnection connection, ShardRoute route, long from, long to) {
    return connection.preparedQuery(lockedRowQuery(route, ROW)).execute(Tuple.of(from, to))
        .map(rows -> rows.size() == 0 ? null : row(rows.iterator().next()));
  }

  /** {@link #readLocked}'s statement, selecting {@code columns}: its parameters, from and to. */
  private String lockedRowQuery(ShardRoute route, String columns) {
    return "SELECT " + columns + " FROM " + on(route.shard()) + " WHERE from_id = ? AND to_id = ? FOR UPDATE";
  }

  /** What a write of one edge locked: whether its FROM node exists, and the edge's row (null when there is none). */
  public record LockedFrom(boolean fromExists, EdgeRow row) {}

  /**
   * {@link #readLocked}, and the FROM node's share lock ({@link NodesTable#existsLocked}) that a
   * write leaving a live edge needs, in one statement: the node's read and the row's joined by
   * {@code UNION ALL}, each part with its own locking clause (the node shared, so writers of one
   * node's edges do not queue on it; the row exclusive), in that order, as the two statements
   * locked them (issue 37: one statement fewer on every such write, for MariaDB to read, parse
   * and answer and for the client to encode and decode). Parts are told apart by {@code part}.
   */
  public Future<LockedFrom> readLockedFrom(SqlConnection connection, ShardRoute route, NodesTable fromNodes,
      NodeId from, long to) {
    String sql = "(" + fromNodes.existsLockedQuery(route.shard(), "0 AS part, " + NO_ROW) + ") UNION ALL ("
        + lockedRowQuery(route, "1, " + ROW) + ")";
    return connection.preparedQuery(sql).execute(Tuple.of(from.local(), from.value(), to)).map(rows -> {
      boolean exists = false;
      EdgeRow row = null;
      for (Row read : rows) {
        if (read.getInteger("part") == 0) {
          exists = true;
        } else {
          row = row(read);
        }
      }
      return new LockedFrom(exists, row);
    });
  }

  /** The columns of {@link #ROW}, empty: a node's part of a locking read that reads its node's row and its edges'. */
  private static final String NO_ROW = "NULL AS sequence, NULL AS state, NULL AS data, NULL AS updated_us";

  /**
   * Writes the row {@link #readLocked} read ({@code before}; null when there was none, and the row
   * is inserted), and records the change on its list's count row ({@link CountsTable}): the count
   * moves if the edge became active or inactive, the list's version always. Answers the change as
   * the change feed announces it, once the transaction commits.
   *
   * <p>The count row's upsert is the last statement it sends, so the next statement sent on the
   * connection reads the list's new version as {@code LAST_INSERT_ID()} ({@link
   * ChangesTable#appendAtListVersion}).
   */
  public Future<GraphChange.EdgeChanged> write(SqlConnection connection, ShardRoute route, NodeId from, NodeId to,
      EdgeRow before, EdgeRow after) {
    Future<?> written = before == null
        ? connection.preparedQuery(rowsSql(route, 1, "")).execute(Tuple.of(from.value(), to.value(), after.sequence(),
            after.state(), after.data(), after.updatedUs())).recover(EdgesTable::concurrentInsert)
        : connection.preparedQuery("UPDATE " + on(route.shard()) + " SET sequence = ?, state = ?, data = ?,"
                + " updated_us = ? WHERE from_id = ? AND to_id = ?")
            .execute(Tuple.of(after.sequence(), after.state(), after.data(), after.updatedUs(), from.value(),
                to.value()));
    Future<GraphChange.EdgeChanged> counted = counted(connection, route, from, to, before, after);
    return Future.all(written, counted).map(both -> counted.result());
  }

  /**
   * {@link #write}'s record of the change on its list's count row, alone: for a row already
   * written by {@link #upsertFrom} or {@link #upsertTombstone}. The count row's upsert is the
   * statement it sends, so the next one sent reads the list's new version as {@code LAST_INSERT_ID()}.
   */
  public Future<GraphChange.EdgeChanged> counted(SqlConnection connection, ShardRoute route, NodeId from,
      NodeId to, EdgeRow before, EdgeRow after) {
    int countDelta = countDelta(EdgeRow.orAbsent(before), after);
    return CountsTable.INSTANCE.adjust(connection, route, type.id(), from.value(), countDelta)
        .map(version -> new GraphChange.EdgeChanged(from, type.name(), to, after.live() ? edge(from, to, after) : null,
            version, countDelta));
  }

  // ---- the upserts: a client's write that decides in SQL ----

  /** What an upsert replaced ({@code before}, null where there was no row) and what it left ({@code after}). */
  public record Upserted(EdgeRow before, EdgeRow after) {}

  /**
   * The old row's columns, kept in session variables by the first assignment of an upsert's
   * {@code ON DUPLICATE KEY UPDATE} before any is overwritten (the assignments run left to right,
   * each later one reading the columns the earlier ones set). Every operand of the {@code OR}
   * runs: all but {@code data} are {@code NOT NULL}, and {@code data} is the last. Its value is
   * always true, so the expression it guards, the first column's new value, is what is assigned.
   */
  private static final String KEEP_OLD_ROW = "(@edge_old_us := updated_us) IS NULL OR (@edge_old_state := state) IS NULL"
      + " OR (@edge_old_sequence := sequence) IS NULL OR (@edge_old_data := data) IS NULL OR TRUE";

  /**
   * How every upsert ends: its last assignment, the write time that lands after the stored one
   * whatever this server's clock says (the later of the new one and the old one plus one); then
   * what it answers, the row it left and the old row's variables ({@code old_us} null where it
   * inserted), cast, as a prepared statement knows no variable's type and would answer text.
   */
  private static final String LANDS_AND_ANSWERS = " updated_us = GREATEST(VALUES(updated_us), @edge_old_us + 1)"
      + " RETURNING " + ROW
      + ", CAST(@edge_old_us AS SIGNED) AS old_us, CAST(@edge_old_state AS SIGNED) AS old_state,"
      + " CAST(@edge_old_sequence AS SIGNED) AS old_sequence, CAST(@edge_old_data AS CHAR) AS old_data";

  /**
   * A client's unconditional add, as one statement that does what {@link #readLockedFrom} and
   * {@link #write} did in two. On a stored row it applies {@code EdgeStore#added}'s rule in SQL —
   * a null {@code sequence} keeps an active edge's (a new one gets {@code nowUs}), null
   * {@code data} keeps an active edge's, and the write time is the later of {@code nowUs} and the
   * stored one plus one, so the write always lands. It answers the row it replaced, from the
   * variables {@link #KEEP_OLD_ROW} kept, and the row it left ({@code RETURNING}): what the Java
   * rule needs to count, log and answer the write. Null when the FROM node is gone.
   *
   * <p>The FROM node is read, share-locked, by a subquery that gives the row its write time
   * ({@link NodesTable#existsLockedQuery}): with no node it is NULL, and a single-row INSERT
   * refuses a NULL for a {@code NOT NULL} column before it looks for a duplicate, in any SQL mode
   * (ER_BAD_NULL_ERROR, the statement undone, nothing written). The natural shape, {@code INSERT
   * … SELECT … FROM} the node's row, costs every transaction it is in a second InnoDB fsync on
   * MariaDB 11.4 (any {@code INSERT … SELECT} does, even from {@code DUAL}): measured, it made
   * the writes mix slower than the locking read it replaced.
   *
   * <p>The variable that tells an insert from an update, {@code @edge_old_us}, is reset by the
   * row itself (its {@code updated_us} is {@code COALESCE(@edge_old_us := NULL, …)}), before
   * MariaDB tries the insert: a variable a statement before it left on the connection is never
   * read as this row's.
   *
   * <p>Why (issue 37): a client's write read its row with a locking read and then wrote it; a
   * build writing without those reads served 1.29–1.40 × the writes, and a build sending them
   * pipelined was no faster, so it was the statement that cost, not its round trip. This one
   * served 1.08–1.09 × the build before it in two runs (benchmarks/README, "An edge write that
   * decides in SQL").
   */
  public Future<Upserted> upsertFrom(SqlConnection connection, ShardRoute route, NodesTable fromNodes, NodeId from,
      long to, Long sequence, int state, String data, long nowUs) {
    String sql = insertInto(route)
        + " VALUES (?, ?, COALESCE(?, ?), ?, ?, COALESCE(@edge_old_us := NULL, ("
        + fromNodes.existsLockedQuery(route.shard(), "?") + ")))"
        + " ON DUPLICATE KEY UPDATE sequence = IF(" + KEEP_OLD_ROW + ","
        + " IF(@edge_old_state = " + EdgeRow.ACTIVE + " AND ? IS NULL, @edge_old_sequence, VALUES(sequence)), NULL),"
        + " data = IF(@edge_old_state = " + EdgeRow.ACTIVE + " AND ? = 1, @edge_old_data, VALUES(data)),"
        + " state = VALUES(state)," + LANDS_AND_ANSWERS;
    Tuple arguments = Tuple.of(from.value(), to, sequence, nowUs, state, data, nowUs, from.local())
        .addValue(sequence).addValue(data == null ? 1 : 0);
    return connection.preparedQuery(sql).execute(arguments)
        .map(rows -> upserted(rows.iterator().next()))
        .recover(failure -> failure instanceof DatabaseException db && db.getErrorCode() == SqlErrors.ER_BAD_NULL_ERROR
            ? Future.succeededFuture(null) : Future.failedFuture(failure));
  }

  /**
   * A client's removal, as one statement: the row made a tombstone that keeps its sequence and
   * data (one inserted where there is none), at the later of {@code nowUs} and its write time plus
   * one, as {@link #upsertFrom} writes; it answers the row it replaced and the tombstone. A
   * removal needs no FROM node: a deleted node's edges are removed too.
   */
  public Future<Upserted> upsertTombstone(SqlConnection connection, ShardRoute route, long from, long to, long nowUs) {
    String sql = insertInto(route)
        + " VALUES (?, ?, 0, " + EdgeRow.DELETED + ", NULL, COALESCE(@edge_old_us := NULL, ?))"
        + " ON DUPLICATE KEY UPDATE state = IF(" + KEEP_OLD_ROW + ", " + EdgeRow.DELETED + ", NULL),"
        + LANDS_AND_ANSWERS;
    return connection.preparedQuery(sql).execute(Tuple.of(from, to, nowUs))
        .map(rows -> upserted(rows.iterator().next()));
  }

  /** An upsert's answer ({@link #LANDS_AND_ANSWERS}) read. */
  private static Upserted upserted(Row read) {
    Long oldUs = read.getLong("old_us");
    EdgeRow before = oldUs == null ? null : new EdgeRow(read.getLong("old_sequence"), read.getInteger("old_state"),
        read.getString("old_data"), oldUs);
    return new Upserted(before, row(read));
  }

  // ---- the batch write path, for bulk imports ----

  /** An edge's primary key: its copy's (from, to). */
  public record Key(long from, long to) implements Comparable<Key> {
    @Override
    public int compareTo(Key other) {
      int byFrom = Long.compareUnsigned(from, other.from);
      return byFrom != 0 ? byFrom : Long.compareUnsigned(to, other.to);
    }
  }

  /** What a batch locked: which of its FROM nodes exist, and the stored rows of its keys. */
  public record LockedMany(Set<NodeId> fromsPresent, Map<Key, EdgeRow> rows) {}

  /**
   * The stored rows of many keys, locked, and which of {@code froms} (the FROM nodes a batch's live
   * copies need) exist, share-locked as {@link NodesTable#existsLocked} locks one — in front of the
   * rows, in one statement as {@link #readLockedFrom} sends its two ({@code froms} empty, the rows'
   * read alone). The rows are read in one shape however many keys: the keys travel as one JSON
   * array bound as a parameter, turned into rows by {@code JSON_TABLE} and joined on the primary
   * key (an {@code eq_ref} lookup per key). A row-constructor IN list of a thousand keys spends
   * longer in the range optimizer than in the lookups. Keys are sorted, so two batches lock in the
   * same order and cannot deadlock on each other. Keys without a row are absent
   * from the answer and lock nothing (READ COMMITTED); {@link #writeMany} inserts those, and a
   * concurrent writer that inserted one first makes the insert fail as ABORTED, so the batch is
   * run again.
   *
   * <p>As in {@link #readLocked}, no placeholder is written first: a bulk import writes mostly new
   * rows, and a placeholder would write each of them, and its secondary index entries, twice.
   */
  public Future<LockedMany> readLockedManyFrom(SqlConnection connection, ShardRoute route, NodesTable fromNodes,
      List<NodeId> froms, List<Key> keys) {
    List<Object> arguments = new ArrayList<>();
    String rows = lockedManyQuery(route);
    String sql = froms.isEmpty() ? rows : "(" + fromNodes.existingLockedQuery(route.shard(),
        "0 AS part, local_id AS from_id, NULL AS to_id, " + NO_ROW, froms, arguments) + ") UNION ALL (" + rows + ")";
    arguments.add(sortedPairs(keys));
    return connection.preparedQuery(sql).execute(Tuple.wrap(arguments)).map(found -> {
      Set<NodeId> present = new HashSet<>();
      Map<Key, EdgeRow> byKey = new HashMap<>();
      for (Row row : found) {
        if (row.getInteger("part") == 0) {
          present.add(fromNodes.idOf(route, row.getLong("from_id")));
        } else {
          byKey.put(new Key(row.getLong("from_id"), row.getLong("to_id")), row(row));
        }
      }
      return new LockedMany(present, byKey);
    });
  }

  /** The rows' part of {@link #readLockedManyFrom}: its one parameter, the keys' {@link #sortedPairs}. */
  private String lockedManyQuery(ShardRoute route) {
    return "SELECT 1 AS part, e.from_id, e.to_id, e.sequence, e.state, e.data, e.updated_us FROM " + KEYS
        + " STRAIGHT_JOIN " + on(route.shard()) + " e ON e.from_id = k.f AND e.to_id = k.t FOR UPDATE";
  }

  /** {@code keys} as {@link #KEYS} reads them, distinct and sorted, so that two batches lock in one order. */
  private static String sortedPairs(List<Key> keys) {
    return pairs(keys.stream().distinct().sorted().map(key -> new long[] {key.from(), key.to()}).toList());
  }

  /**
   * Pairs of numbers bound as one parameter and turned into rows {@code k(f, t)} by
   * {@link #KEYS}: a statement of one shape however many keys it looks up, each an {@code eq_ref}
   * lookup of the table it is joined to.
   */
  private static final String KEYS =
      "JSON_TABLE(?, '$[*]' COLUMNS (f BIGINT UNSIGNED PATH '$[0]', t BIGINT UNSIGNED PATH '$[1]')) k";

  /** {@code pairs} as the JSON array {@link #KEYS} reads: {@code [[f, t], …]}. */
  private static String pairs(List<long[]> pairs) {
    StringBuilder json = new StringBuilder(pairs.size() * 36).append('[');
    for (long[] pair : pairs) {
      json.append(json.length() == 1 ? "[" : ",[").append(pair[0]).append(',').append(pair[1]).append(']');
    }
    return json.append(']').toString();
  }

  /**
   * One row of a batch: what its key held, locked ({@code before}; null when there was no row),
   * and what it becomes.
   */
  public record Rewrite(Key key, EdgeRow before, EdgeRow after) {
    /** What the key held, as ranked: {@link EdgeRow#ABSENT} where there was no row. */
    public EdgeRow held() {
      return EdgeRow.orAbsent(before);
    }
  }

  /**
   * {@link #write} for many locked rows at once, at most one per key: one multi-row INSERT of the
   * new rows, one multi-row upsert of the stored ones, one statement for their lists' counts and
   * versions ({@link CountsTable#adjustMany}, which answers the versions it made), all sent together.
   * A list's version moves by the number of its rows written; its changes are answered in the
   * order given, numbered up to the version read, so a cache holding the list applies them in
   * place as it does single writes'.
   */
  public Future<List<GraphChange.EdgeChanged>> writeMany(SqlConnection connection, ShardRoute route,
      List<Rewrite> rewrites) {
    if (rewrites.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    List<Rewrite> inserts = rewrites.stream().filter(rewrite -> rewrite.before() == null).toList();
    List<Rewrite> updates = rewrites.stream().filter(rewrite -> rewrite.before() != null).toList();
    Future<?> inserted = inserts.isEmpty() ? Future.succeededFuture()
        : connection.preparedQuery(rowsSql(route, inserts.size(), "")).execute(rowsArguments(inserts))
            .recover(EdgesTable::concurrentInsert);
    Future<?> updated = updates.isEmpty() ? Future.succeededFuture()
        : connection.preparedQuery(rowsSql(route, InLists.bucket(updates.size()),
                " ON DUPLICATE KEY UPDATE sequence = VALUES(sequence), state = VALUES(state), data = VALUES(data),"
                    + " updated_us = VALUES(updated_us)"))
            .execute(padded(rowsArguments(updates), updates.size(), InLists.bucket(updates.size())));
    Map<Long, CountsTable.Adjustment> lists = new LinkedHashMap<>();
    for (Rewrite rewrite : rewrites) {
      lists.merge(rewrite.key().from(),
          new CountsTable.Adjustment(rewrite.key().from(), countDelta(rewrite.held(), rewrite.after()), 1),
          CountsTable.Adjustment::plus);
    }
    Future<Map<Long, Long>> versions = CountsTable.INSTANCE.adjustMany(connection, route, type.id(),
        List.copyOf(lists.values()));
    return Future.all(inserted, updated, versions).map(all -> {
      // A list's versions go to its rows in the order they were written, the inserts' statement
      // before the updates', which is the order a reader of the binary log meets them in
      // (TailedChanges numbers a list's rows so).
      Map<Long, Long> next = new HashMap<>();
      lists.forEach((from, adjustment) -> next.put(from, versions.result().get(from) - adjustment.changes() + 1));
      Map<Rewrite, Long> versionOf = new IdentityHashMap<>();
      for (List<Rewrite> written : List.of(inserts, updates)) {
        written.forEach(rewrite -> versionOf.put(rewrite, next.merge(rewrite.key().from(), 1L, Long::sum) - 1));
      }
      List<GraphChange.EdgeChanged> changed = new ArrayList<>(rewrites.size());
      for (Rewrite rewrite : rewrites) {
        NodeId from = new NodeId(rewrite.key().from());
        NodeId to = new NodeId(rewrite.key().to());
        changed.add(new GraphChange.EdgeChanged(from, type.name(), to,
            rewrite.after().live() ? edge(from, to, rewrite.after()) : null,
            versionOf.get(rewrite), countDelta(rewrite.held(), rewrite.after())));
      }
      return changed;
    });
  }

  /** What a write does to its list's count: +1 when the edge becomes active, −1 when it stops being, else 0. */
  private static int countDelta(EdgeRow before, EdgeRow after) {
    return before.active() == after.active() ? 0 : after.active() ? 1 : -1;
  }

  /**
   * {@code INSERT INTO t (columns) VALUES (…) × rows}, then {@code tail}. Only the upsert is padded
   * to a power of two: a repeated row in a plain INSERT would be a duplicate key.
   */
  private String rowsSql(ShardRoute route, int rows, String tail) {
    StringBuilder sql = new StringBuilder(insertInto(route)).append(" VALUES ");
    for (int row = 0; row < rows; row++) {
      sql.append(row == 0 ? "(?, ?, ?, ?, ?, ?)" : ", (?, ?, ?, ?, ?, ?)");
    }
    return sql.append(tail).toString();
  }

  /** {@code INSERT INTO t (columns)}, on the route's shard. */
  private String insertInto(ShardRoute route) {
    return "INSERT INTO " + on(route.shard()) + " (" + String.join(", ", COLUMNS) + ")";
  }

  private static Tuple rowsArguments(List<Rewrite> rewrites) {
    Tuple arguments = Tuple.tuple();
    for (Rewrite rewrite : rewrites) {
      EdgeRow after = rewrite.after();
      arguments.addLong(rewrite.key().from()).addLong(rewrite.key().to()).addLong(after.sequence())
          .addInteger(after.state()).addString(after.data()).addLong(after.updatedUs());
    }
    return arguments;
  }

  /** The arguments of {@code rows} rows, padded to {@code slots} by repeating the last row's. */
  private static Tuple padded(Tuple arguments, int rows, int slots) {
    int width = COLUMNS.size();
    for (int slot = rows; slot < slots; slot++) {
      for (int column = 0; column < width; column++) {
        arguments.addValue(arguments.getValue((rows - 1) * width + column));
      }
    }
    return arguments;
  }

  /** A row read as absent was inserted by a concurrent writer since: run the transaction again. */
  private static <T> Future<T> concurrentInsert(Throwable failure) {
    if (failure instanceof DatabaseException db && db.getErrorCode() == SqlErrors.ER_DUP_ENTRY) {
      return Future.failedFuture(GraphException.of(GraphException.Code.ABORTED,
          "a concurrent write created the edge first", failure));
    }
    return Future.failedFuture(failure);
  }

  // ---- reads ----

  /** The copy (from, to) as stored, a tombstone included; null when there is no row. */
  public Future<EdgeRow> get(SqlClient client, ShardRoute route, long from, long to) {
    return client.preparedQuery("SELECT " + ROW + " FROM " + on(route.shard()) + " WHERE from_id = ? AND to_id = ?")
        .execute(Tuple.of(from, to))
        .map(rows -> rows.size() == 0 ? null : row(rows.iterator().next()));
  }

  /** The edge (from, to), active or archived, or null. */
  public Future<EdgeRow> getLive(SqlClient client, ShardRoute route, long from, long to) {
    return client.preparedQuery("SELECT " + ROW + " FROM " + on(route.shard())
            + " WHERE from_id = ? AND to_id = ? AND state <> " + EdgeRow.DELETED)
        .execute(Tuple.of(from, to))
        .map(rows -> rows.size() == 0 ? null : row(rows.iterator().next()));
  }

  /** An active edge as a page returns it: its target and its row. */
  public record Listed(NodeId to, EdgeRow row) {}

  /**
   * The edges from {@code from} to any of {@code tos} in one of {@code states}, in the list's
   * order (newest first): one statement, point lookups on the primary key.
   */
  public Future<List<Listed>> liveTo(SqlClient client, ShardRoute route, long from, List<Long> tos,
      Set<EdgeState> states) {
    List<Object> arguments = new ArrayList<>();
    arguments.add(from);
    String sql = "SELECT to_id, " + ROW + " FROM " + on(route.shard()) + " WHERE from_id = ? AND to_id IN ("
        + InLists.pad(tos, arguments) + ") AND state " + (states.size() == 1 ? "= " + stateValue(states.iterator().next())
            : "<> " + EdgeRow.DELETED) + " ORDER BY sequence DESC, to_id DESC";
    return client.preparedQuery(sql).execute(Tuple.wrap(arguments)).map(EdgesTable::listed);
  }

  private static int stateValue(EdgeState state) {
    return state == EdgeState.ARCHIVED ? EdgeRow.ARCHIVED : EdgeRow.ACTIVE;
  }

  /**
   * What {@link #lookupMany} read on one shard: the live edges found among the keys asked for (and
   * every live edge of each list said whole), (when asked) the version of every list asked about,
   * absent lists at 0, and the lists read whole.
   */
  public record Lookup(Map<EdgeId, Edge> found, Map<EdgeListId, Long> versions, Set<EdgeListId> whole) {}

  /**
   * The live rows (active or archived) of many keys in several edge tables of one shard, as edges,
   * and with {@code withVersions} their lists' versions, in one statement and so from one snapshot:
   * per table a join of the keys ({@link #KEYS}) on the primary key, the count rows' versions
   * likewise, all joined by {@code UNION ALL} (a count row travels with its edge type in
   * {@code to_id}, its version in {@code sequence} and its count in {@code updated_us}, marked
   * {@code part = 0}).
   *
   * <p>Each list of {@code readWhole} (only with {@code withVersions}) whose count row says it has
   * at most {@code wholeUpTo} active edges is also read whole, in the same statement: its count row
   * joined first, so a longer list costs that one row, then its live rows by the primary key's
   * prefix. The whole part of a table stops at {@code wholeUpTo + 1} rows per list named; a list is
   * said whole ({@link Lookup#whole}) when it has a count row, at most {@code wholeUpTo} live rows
   * were read of it, and its table's part did not stop early (archived rows are not counted, so a
   * short list with many archived ones is read to that stop once, then not said whole). A list
   * without a count row has never been written and is not said whole.
   */
  public static Future<Lookup> lookupMany(SqlClient client, ShardRoute route, Map<EdgesTable, List<Key>> byTable,
      boolean withVersions, Set<EdgeListId> readWhole, int wholeUpTo) {
    List<EdgesTable> tables = new ArrayList<>(byTable.keySet());
    List<Object> arguments = new ArrayList<>();
    StringBuilder sql = new StringBuilder();
    if (withVersions) {
      List<long[]> lists = new ArrayList<>();
      tables.forEach(table -> byTable.get(table).stream().map(Key::from).distinct()
          .forEach(from -> lists.add(new long[] {from, table.type.id()})));
      sql.append("(SELECT 0 AS part, c.from_id, c.edge_type AS to_id, c.version AS sequence, NULL AS state,"
          + " NULL AS data, c.count AS updated_us FROM ").append(KEYS).append(" STRAIGHT_JOIN ")
          .append(CountsTable.INSTANCE.on(route.shard())).append(" c ON c.from_id = k.f AND c.edge_type = k.t)");
      arguments.add(pairs(lists));
    }
    for (int i = 0; i < tables.size(); i++) {
      sql.append(sql.length() == 0 ? "(" : " UNION ALL (").append("SELECT ").append(i + 1)
          .append(" AS part, e.from_id, e.to_id, e.sequence, e.state, e.data, e.updated_us FROM ").append(KEYS)
          .append(" STRAIGHT_JOIN ").append(tables.get(i).on(route.shard()))
          .append(" e ON e.from_id = k.f AND e.to_id = k.t WHERE e.state <> ").append(EdgeRow.DELETED).append(')');
      arguments.add(pairs(byTable.get(tables.get(i)).stream().map(key -> new long[] {key.from(), key.to()}).toList()));
    }
    // The lists of each table to read whole, by the part of the statement that reads them.
    Map<Integer, List<EdgeListId>> wholeByPart = new HashMap<>();
    for (int i = 0; withVersions && wholeUpTo > 0 && !readWhole.isEmpty() && i < tables.size(); i++) {
      EdgesTable table = tables.get(i);
      List<EdgeListId> lists = byTable.get(table).stream().map(key -> new EdgeListId(new NodeId(key.from()),
          table.type.name())).distinct().filter(readWhole::contains).toList();
      if (lists.isEmpty()) {
        continue;
      }
      int part = tables.size() + 1 + i;
      wholeByPart.put(part, lists);
      sql.append(" UNION ALL (SELECT ").append(part)
          .append(" AS part, e.from_id, e.to_id, e.sequence, e.state, e.data, e.updated_us FROM ").append(KEYS)
          .append(" STRAIGHT_JOIN ").append(CountsTable.INSTANCE.on(route.shard()))
          .append(" c ON c.from_id = k.f AND c.edge_type = k.t AND c.count <= ? STRAIGHT_JOIN ")
          .append(table.on(route.shard())).append(" e ON e.from_id = c.from_id WHERE e.state IN (")
          .append(EdgeRow.ACTIVE).append(", ").append(EdgeRow.ARCHIVED).append(") LIMIT ?)");
      arguments.add(pairs(lists.stream().map(list -> new long[] {list.from().value(), table.type.id()}).toList()));
      arguments.add(wholeUpTo);
      arguments.add(lists.size() * (wholeUpTo + 1));
    }
    return client.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)).map(rows -> {
      Map<EdgeId, Edge> found = new HashMap<>();
      Map<Integer, EdgesTable> byTypeId = new HashMap<>();
      tables.forEach(table -> byTypeId.put(table.type.id(), table));
      Map<EdgeListId, Long> versions = new HashMap<>();
      Map<EdgeListId, Long> counts = new HashMap<>();
      if (withVersions) {
        tables.forEach(table -> byTable.get(table).forEach(key ->
            versions.put(new EdgeListId(new NodeId(key.from()), table.type.name()), 0L)));
      }
      Map<EdgeListId, List<Edge>> listed = new HashMap<>();
      for (Row row : rows) {
        int part = row.getInteger("part");
        NodeId from = new NodeId(row.getLong("from_id"));
        if (part == 0) {
          EdgeListId list = new EdgeListId(from, byTypeId.get(row.getLong("to_id").intValue()).type.name());
          versions.put(list, row.getLong("sequence"));
          counts.put(list, row.getLong("updated_us"));
          continue;
        }
        Edge edge = tables.get((part - 1) % tables.size()).edge(from, new NodeId(row.getLong("to_id")), row(row));
        if (part <= tables.size()) {
          found.put(edge.id(), edge);
        } else {
          listed.computeIfAbsent(edge.id().list(), list -> new ArrayList<>()).add(edge);
        }
      }
      Set<EdgeListId> whole = new HashSet<>();
      for (List<EdgeListId> lists : wholeByPart.values()) {
        int read = lists.stream().mapToInt(list -> listed.getOrDefault(list, List.of()).size()).sum();
        if (read >= lists.size() * (wholeUpTo + 1)) {
          continue;
        }
        for (EdgeListId list : lists) {
          List<Edge> edges = listed.getOrDefault(list, List.of());
          if (counts.containsKey(list) && counts.get(list) <= wholeUpTo && edges.size() <= wholeUpTo) {
            whole.add(list);
            edges.forEach(edge -> found.put(edge.id(), edge));
          }
        }
      }
      return new Lookup(found, versions, whole);
    });
  }

  /**
   * What {@link #lookupList} read of one list: the live edges found (those asked for, and the
   * whole list's when it was read whole), its version, and whether {@code found} is every live
   * edge the list has.
   */
  public record ListLookup(List<Edge> found, long version, boolean whole) {}

  /**
   * The live rows of {@code tos} in one list, with the list's version, and — when the list has at
   * most {@code wholeUpTo} live edges, active or archived — every live row of it: one statement,
   * one snapshot, primary-key and index lookups only (no {@code JSON_TABLE}: one list is the
   * common case, a single edge read, and this is the cheapest statement that answers it). The
   * whole list is read only when its count row allows it, and then at most one row past
   * {@code wholeUpTo} (archived edges are not counted), so a long list costs its count row and
   * the keys asked for. A list without a count row counts as empty (it has never been written;
   * the rows read say whether it is).
   */
  public Future<ListLookup> lookupList(SqlClient client, ShardRoute route, long from, List<Long> tos, int wholeUpTo) {
    List<Object> arguments = new ArrayList<>();
    StringBuilder sql = new StringBuilder("(SELECT 0 AS part, c.count AS to_id, c.version AS sequence, NULL AS state,"
        + " NULL AS data, NULL AS updated_us FROM ").append(CountsTable.INSTANCE.on(route.shard()))
        .append(" c WHERE c.from_id = ? AND c.edge_type = ?)");
    arguments.add(from);
    arguments.add(type.id());
    sql.append(" UNION ALL (SELECT 1, to_id, ").append(ROW).append(" FROM ").append(on(route.shard()))
        .append(" WHERE from_id = ? AND to_id IN (");
    arguments.add(from);
    sql.append(InLists.pad(tos, arguments)).append(") AND state <> ").append(EdgeRow.DELETED).append(')');
    if (wholeUpTo > 0) {
      sql.append(" UNION ALL (SELECT 2, to_id, ").append(ROW).append(" FROM ").append(on(route.shard()))
          .append(" WHERE from_id = ? AND state IN (").append(EdgeRow.ACTIVE).append(", ").append(EdgeRow.ARCHIVED)
          .append(") AND COALESCE((SELECT c.count FROM ").append(CountsTable.INSTANCE.on(route.shard()))
          .append(" c WHERE c.from_id = ? AND c.edge_type = ?), 0) <= ? LIMIT ?)");
      arguments.add(from);
      arguments.add(from);
      arguments.add(type.id());
      arguments.add(wholeUpTo);
      arguments.add(wholeUpTo + 1);
    }
    return client.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)).map(rows -> {
      long count = 0;
      long version = 0;
      int listed = 0;
      Map<NodeId, Edge> found = new LinkedHashMap<>();
      NodeId source = new NodeId(from);
      for (Row row : rows) {
        int part = row.getInteger("part");
        if (part == 0) {
          count = row.getLong("to_id");
          version = row.getLong("sequence");
        } else {
          NodeId to = new NodeId(row.getLong("to_id"));
          listed += part == 2 ? 1 : 0;
          found.putIfAbsent(to, edge(source, to, row(row)));
        }
      }
      boolean whole = wholeUpTo > 0 && count <= wholeUpTo && listed <= wholeUpTo;
      return new ListLookup(List.copyOf(found.values()), version, whole);
    });
  }

  /**
   * One page of the active (or, as the query asks, archived) edges from a node, by (sequence, to)
   * in the query's order: one range scan of {@code by_sequence}. One row more than the page is read, to know whether another follows.
   */
  public Future<List<Listed>> page(SqlClient client, ShardRoute route, long from, EdgeQuery query) {
    boolean descending = query.order() == Order.DESC;
    List<Object> arguments = new ArrayList<>();
    StringBuilder sql = new StringBuilder("SELECT to_id, ").append(ROW).append(" FROM ").append(on(route.shard()))
        .append(" WHERE from_id = ? AND state = ")
        .append(query.state() == EdgeState.ARCHIVED ? EdgeRow.ARCHIVED : EdgeRow.ACTIVE);
    arguments.add(from);
    if (query.minSequence() != null) {
      sql.append(" AND sequence >= ?");
      arguments.add(query.minSequence());
    }
    if (query.maxSequence() != null) {
      sql.append(" AND sequence <= ?");
      arguments.add(query.maxSequence());
    }
    Cursor after = query.after();
    if (after != null) {
      String beyond = descending ? "<" : ">";
      sql.append(" AND (sequence ").append(beyond).append(" ? OR (sequence = ? AND to_id ").append(beyond).append(" ?))");
      arguments.add(after.sequence());
      arguments.add(after.sequence());
      arguments.add(after.to());
    }
    String direction = descending ? " DESC" : " ASC";
    sql.append(" ORDER BY sequence").append(direction).append(", to_id").append(direction).append(" LIMIT ? OFFSET ?");
    arguments.add(query.limit() + 1);
    arguments.add(query.offset());
    return client.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)).map(EdgesTable::listed);
  }

  private static List<Listed> listed(RowSet<Row> rows) {
    List<Listed> listed = new ArrayList<>(rows.size());
    rows.forEach(row -> listed.add(new Listed(new NodeId(row.getLong("to_id")), row(row))));
    return listed;
  }

  /**
   * At most {@code limit} targets of the active edges from {@code from} above {@code after}, in
   * ascending order: one range of the primary key {@code (from_id, to_id)}, whatever the list's size.
   */
  public Future<List<NodeId>> targets(SqlClient client, ShardRoute route, long from, long after, int limit) {
    return client.preparedQuery("SELECT to_id FROM " + on(route.shard()) + " WHERE from_id = ? AND to_id > ? AND state = "
            + EdgeRow.ACTIVE + " ORDER BY to_id LIMIT ?")
        .execute(Tuple.of(from, after, limit))
        .map(rows -> {
          List<NodeId> targets = new ArrayList<>(rows.size());
          rows.forEach(row -> targets.add(new NodeId(row.getLong("to_id"))));
          return targets;
        });
  }

  /** The newest edges of a list, with the list's count and version as of the same moment. */
  public record Head(List<Listed> newest, long count, long version) {}

  /**
   * The newest {@code limit} active edges of a list with its count and version, in one statement
   * and so from one consistent snapshot: the count row and the top of {@code by_sequence},
   * joined by {@code UNION ALL} (the count row's two values travel in the first row's {@code to_id}
   * and {@code sequence} places, marked {@code part = 0}). What a cache keeps of a list is filled
   * by this one read.
   */
  public Future<Head> head(SqlClient client, ShardRoute route, long from, int limit) {
    String sql = "(SELECT 0 AS part, count AS to_id, version AS sequence, NULL AS state, NULL AS data,"
        + " NULL AS updated_us FROM " + CountsTable.INSTANCE.on(route.shard()) + " WHERE from_id = ? AND edge_type = ?)"
        + " UNION ALL (SELECT 1, to_id, " + ROW + " FROM " + on(route.shard())
        + " WHERE from_id = ? AND state = " + EdgeRow.ACTIVE + " ORDER BY sequence DESC, to_id DESC LIMIT ?)";
    return client.preparedQuery(sql).execute(Tuple.of(from, type.id(), from, limit)).map(rows -> {
      long count = 0;
      long version = 0;
      List<Listed> newest = new ArrayList<>();
      for (Row row : rows) {
        if (row.getInteger("part") == 0) {
          count = row.getLong("to_id");
          version = row.getLong("sequence");
        } else {
          newest.add(new Listed(new NodeId(row.getLong("to_id")), row(row)));
        }
      }
      return new Head(newest, count, version);
    });
  }

  // ---- scans, for repair ----

  /** A row with its key, tombstones included. */
  public record Stored(NodeId from, NodeId to, EdgeRow row) {}

  /** At most {@code limit} rows after (fromAfter, toAfter) in primary-key order. */
  public Future<List<Stored>> scan(SqlClient client, ShardRoute route, long fromAfter, long toAfter, int limit) {
    String sql = "SELECT " + String.join(", ", COLUMNS) + " FROM " + on(route.shard())
        + " WHERE from_id > ? OR (from_id = ? AND to_id > ?) ORDER BY from_id, to_id LIMIT ?";
    return client.preparedQuery(sql).execute(Tuple.of(fromAfter, fromAfter, toAfter, limit)).map(EdgesTable::stored);
  }

  /** The rows among (froms × tos): one statement, for a page's mirrors on one shard. */
  public Future<List<Stored>> among(SqlClient client, ShardRoute route, Set<Long> froms, Set<Long> tos) {
    List<Object> arguments = new ArrayList<>();
    String sql = "SELECT " + String.join(", ", COLUMNS) + " FROM " + on(route.shard())
        + " WHERE from_id IN (" + InLists.pad(List.copyOf(froms), arguments) + ") AND to_id IN ("
        + InLists.pad(List.copyOf(tos), arguments) + ")";
    return client.preparedQuery(sql).execute(Tuple.wrap(arguments)).map(EdgesTable::stored);
  }

  // ---- tombstones ----

  /** Removes at most {@code limit} tombstones written before {@code cutoffUs}. */
  public Future<Integer> collectTombstones(SqlClient client, ShardRoute route, long cutoffUs, int limit) {
    return client.preparedQuery("DELETE FROM " + on(route.shard()) + " WHERE state = " + EdgeRow.DELETED
            + " AND updated_us < ? LIMIT ?")
        .execute(Tuple.of(cutoffUs, limit))
        .map(rows -> rows.rowCount());
  }

  // ---- for JDBC readers (tests, tools) ----

  /** Every row of the table on a shard, tombstones included. */
  public String selectAllSql(int shard) {
    return "SELECT " + String.join(", ", COLUMNS) + " FROM " + on(shard);
  }

  /** (from_id, active rows) for every FROM node with active edges on a shard. */
  public String activeCountsSql(int shard) {
    return "SELECT from_id, COUNT(*) FROM " + on(shard) + " WHERE state = " + EdgeRow.ACTIVE + " GROUP BY from_id";
  }

  // ---- rows ----

  /** A row as the edge it is, its data completed with the type's defaults. */
  public Edge edge(NodeId from, NodeId to, EdgeRow row) {
    ObjectNode stored = row.data() == null ? SqlValues.emptyObject() : SqlValues.parseObject(row.data());
    return new Edge(from, type.name(), to, row.sequence(), type.withDefaults(stored),
        SqlValues.fromMicros(row.updatedUs()), row.state() == EdgeRow.ARCHIVED ? EdgeState.ARCHIVED : EdgeState.ACTIVE);
  }

  private static List<Stored> stored(Iterable<Row> rows) {
    List<Stored> stored = new ArrayList<>();
    rows.forEach(row -> stored.add(new Stored(new NodeId(row.getLong("from_id")), new NodeId(row.getLong("to_id")),
        row(row))));
    return stored;
  }

  /** The ranked part of a row. */
  public static EdgeRow row(Row row) {
    return new EdgeRow(row.getLong("sequence"), row.getInteger("state"), row.getString("data"),
        row.getLong("updated_us"));
  }
}
