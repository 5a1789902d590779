package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.InLists;
import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code changes}: the shard's change log, one row per committed change of a node or an edge copy,
 * appended in the write's own transaction (as the outbox is), so a change is logged if and only if
 * it committed.
 *
 * <h2>Positions</h2>
 * A row's {@code id} (AUTO_INCREMENT) is taken when its INSERT runs, not when its transaction
 * commits: a transaction that commits late makes a lower id visible after higher ones, and a reader
 * that kept "the highest id seen" would skip it for ever (the outbox's header says the same of its
 * entries). So a reader never sees ids. A row is given its <em>position</em> ({@code pos}) by the
 * shard's sequencer ({@link #sequence}), one at a time per shard, which numbers the rows still
 * without one in id order, after the highest position given: positions follow the order in which
 * changes became visible, and a late commit gets a later position instead of a skipped one. Two
 * changes of one node or one edge list are serialized by their row locks, so the later one's INSERT
 * comes after the earlier one's commit and its id, and so its position, is higher: per key,
 * positions follow commit order. The {@code pos} column is unique, so two sequencers racing (a lease
 * changing hands) cannot give one position twice: one of them fails and the next pass goes on.
 *
 * <p>Positions live in the shard's database, so they move with the shard (a move copies this table
 * with the others) and survive a failover (it is replicated like the rest).
 *
 * <h2>Failovers</h2>
 * A position given on a primary alone — its numbering committed by MariaDB when no replica
 * confirmed it (a commit killed at its deadline, or acknowledged asynchronously) — may be lost by a
 * failover, and the new primary would give it again to another change: a consumer that read it
 * would skip that change for ever. So a failover, before the promoted replica takes a write,
 * inserts a marker row ({@link #failoverMark}) {@value #FAILOVER_GAP} positions past the newest it
 * holds: every position given afterwards is past any the old primary could have given, a change
 * it numbered alone is numbered again after the marker (a consumer sees it twice, never not at
 * all), and the marker itself is an event of kind {@code failover} telling a consumer why the
 * positions jumped.
 *
 * <h2>Retention</h2>
 * {@link #trim} deletes the oldest sequenced rows while they are older than the retention window or
 * beyond its row bound (in rows) — always a prefix in position order, read and deleted by position,
 * so a trim costs what it deletes, not the log's size — but never a shard's newest sequenced row: it
 * carries the highest position, so the sequencer continues from it, and the oldest row kept tells a
 * reader how far back the log reaches.
 */
public final class ChangesTable implements ShardTable {
  public static final ChangesTable INSTANCE = new ChangesTable();
  /** How far a failover moves a shard's positions past the newest its promoted replica holds. */
  public static final long FAILOVER_GAP = 1_000_000_000L;
  /** A failover marker's event, around the position its jump starts from. */
  private static final String FAILOVER_EVENT = "{\"kind\": \"failover\", \"change\": \"positions skipped\", \"after\": ";
  private static final Pattern FAILOVER_AFTER = Pattern.compile("\"kind\": \"failover\".*\"after\": (\\d+)");
  private static final List<String> COLUMNS = List.of("id", "pos", "type_name", "event", "written_us");

  /**
   * Why the statements that look for rows without a position name the position index: MariaDB's
   * statistics count a unique index's NULLs as one value spread over the whole table, so it
   * judged {@code pos IS NULL} to match every row and chose to walk the primary key in id order —
   * for the sequencer, through every numbered row to reach the few new ones at the end; for the
   * lag figure, a scan of the whole log. Both took time and reads growing with the log: the
   * sequencer at every drain pass, the lag at every {@code /metrics} scrape (issue 37; late in a
   * LinkBench run a host's drainer was killed at the 3 s deadline in an UPDATE, and 16 client
   * writes were answered 503 at that moment). The unnumbered rows are the index's NULL entries, in
   * id order, so through the index each reads only them ({@link #sequence} says how the numbering
   * itself reads, {@link #oldestUnnumbered} why the lag reads only the first). {@code
   * ChangesTableTest} reads MariaDB's {@code Rows_read}.
   */
  private static final String UNNUMBERED = "FORCE INDEX (pos)";

  private ChangesTable() {}

  @Override
  public String name() {
    return "changes";
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
        + " pos BIGINT UNSIGNED NULL,"
        + " type_name VARCHAR(64) NOT NULL,"
        + " event MEDIUMTEXT NOT NULL,"
        + " written_us BIGINT NOT NULL,"
        + " UNIQUE KEY pos (pos)"
        + ") ENGINE=InnoDB";
  }

  /** One change to append: the type it concerns (node or edge type, for filtering) and its event as JSON text. */
  public record Entry(String typeName, String event) {}

  /**
   * One change to append whose event holds its list's version where MariaDB writes it: the event is
   * {@code eventHead}, the version, then {@code eventTail} ({@link #appendAtListVersion}).
   */
  public record VersionedEntry(String typeName, String eventHead, String eventTail) {}

  /** A sequenced row: its position, the type it concerns, its event as JSON text, and when it was written. */
  public record Logged(long position, String typeName, String event, long writtenUs) {}

  /** The positions a shard's log holds now: the oldest kept and the newest (both 0 when it holds none). */
  public record Bounds(long oldest, long newest) {}

  /** Appends {@code entries} inside the transaction of the write that made them, to be numbered by the sequencer. */
  public Future<Void> append(SqlConnection connection, ShardRoute route, List<Entry> entries, long writtenUs) {
    return insert(connection, route.shard(), entries, 0, writtenUs);
  }

  /**
   * Appends {@code entries} already numbered, the first at position {@code first} and each next one
   * after it: a tailer's, which numbers the changes in the order it reads them from the host's
   * binary log, so no sequencer numbers them after. The position index is unique, so a second
   * writer numbering the same positions fails instead of logging twice.
   */
  public Future<Void> appendNumbered(SqlConnection connection, int shard, long first, List<Entry> entries,
      long writtenUs) {
    if (first < 1) {
      throw new IllegalArgumentException("positions start at 1, not " + first);
    }
    return insert(connection, shard, entries, first, writtenUs);
  }

  /**
   * {@code entries}' INSERTs, numbered from {@code first} or not numbered (0), in statements of a
   * power-of-two number of rows each (a batch of 13 is 8, 4 and 1), so the statement shapes a
   * connection prepares stay few.
   */
  private Future<Void> insert(SqlConnection connection, int shard, List<Entry> entries, long first, long writtenUs) {
    boolean numbered = first > 0;
    String row = numbered ? "(?, ?, ?, ?)" : "(?, ?, ?)";
    List<Future<?>> sent = new ArrayList<>();
    int from = 0;
    while (from < entries.size()) {
      int size = Integer.highestOneBit(entries.size() - from);
      List<Object> arguments = new ArrayList<>(size * 4);
      StringBuilder sql = new StringBuilder("INSERT INTO ").append(on(shard))
          .append(numbered ? " (pos, type_name, event, written_us) VALUES " : " (type_name, event, written_us) VALUES ");
      for (int i = from; i < from + size; i++) {
        Entry entry = entries.get(i);
        sql.append(i == from ? "" : ", ").append(row);
        if (numbered) {
          arguments.add(first + i);
        }
        arguments.add(entry.typeName());
        arguments.add(entry.event());
        arguments.add(writtenUs);
      }
      sent.add(connection.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)));
      from += size;
    }
    return Future.all(sent).mapEmpty();
  }

  /** The highest position the shard's log has given (0 for none), read in the caller's transaction. */
  public Future<Long> newest(SqlConnection connection, int shard) {
    return connection.query("SELECT COALESCE(MAX(pos), 0) AS newest FROM " + on(shard)).execute()
        .map(rows -> rows.iterator().next().getLong("newest"));
  }

  /**
   * Appends {@code entry} with the version that the statement sent just before it on this
   * connection gave its edge list: {@link CountsTable#adjust} leaves it as the connection's
   * {@code LAST_INSERT_ID()}, and within a statement that function answers what the statements
   * before it left (this INSERT's own AUTO_INCREMENT id counts only from the next). So the entry
   * needs no answer of the write before it is sent, and costs the write no round trip.
   */
  public Future<Void> appendAtListVersion(SqlConnection connection, ShardRoute route, VersionedEntry entry,
      long writtenUs) {
    return connection.preparedQuery("INSERT INTO " + on(route.shard()) + " (type_name, event, written_us)"
            + " VALUES (?, CONCAT(?, LAST_INSERT_ID(), ?), ?)")
        .execute(Tuple.of(entry.typeName(), entry.eventHead(), entry.eventTail(), writtenUs)).mapEmpty();
  }

  /** Which of {@code routes}' shards hold rows without a position, in one statement however many shards. */
  public Future<Set<Integer>> shardsToSequence(SqlClient client, List<ShardRoute> routes) {
    if (routes.isEmpty()) {
      return Future.succeededFuture(Set.of());
    }
    List<Object> arguments = new ArrayList<>(routes.size());
    return client.preparedQuery(unnumberedQuery(routes, "", arguments)).execute(Tuple.wrap(arguments)).map(rows -> {
      Set<Integer> shards = new TreeSet<>();
      rows.forEach(row -> shards.add(row.getInteger("shard")));
      return shards;
    });
  }

  /**
   * {@link #shardsToSequence}'s statement, its parameters added to {@code arguments}: per shard a
   * part answering the shard's number ({@code shard}, then the columns {@code also} adds) when it
   * holds a row without a position, read through the position index. For a statement that asks it
   * with another question of the same shards ({@link OutboxTable#shardsWithWork}).
   */
  String unnumberedQuery(List<ShardRoute> routes, String also, List<Object> arguments) {
    return shardsHoldingQuery(routes, "pos IS NULL", List.of(), also, arguments);
  }

  /**
   * When the oldest row without a position on {@code routes}' shards was written, in one statement;
   * null when every row has one. Per shard it reads one row, the {@link #firstUnnumbered first
   * unnumbered}: the lowest id was inserted first, so it has waited longest (to within the clocks of
   * the servers that wrote it and the rows after it, which is all a lag figure needs). Taking the
   * least {@code written_us} of every unnumbered row instead read the whole backlog at every
   * {@code /metrics} scrape — 100,000 rows behind a drainer away for a while, read just when the
   * host is busiest catching up.
   */
  public Future<Long> oldestUnnumbered(SqlClient client, List<ShardRoute> routes) {
    StringBuilder sql = new StringBuilder("SELECT MIN(oldest) AS oldest FROM (");
    for (int i = 0; i < routes.size(); i++) {
      sql.append(i == 0 ? "" : " UNION ALL ").append("(")
          .append(firstUnnumbered(on(routes.get(i).shard()), "written_us AS oldest")).append(")");
    }
    return client.query(sql.append(") unnumbered").toString()).execute()
        .map(rows -> rows.iterator().next().getLong("oldest"));
  }

  /**
   * A statement answering {@code column} of the table's row without a position of the lowest id,
   * reading that row alone: the position index's first NULL entry ({@link #UNNUMBERED}), since a
   * secondary index orders equal keys by the primary key. No row when every row has a position.
   */
  private static String firstUnnumbered(String table, String column) {
    return "SELECT " + column + " FROM " + table + " " + UNNUMBERED + " WHERE pos IS NULL LIMIT 1";
  }

  /**
   * Gives the rows without a position theirs, at most {@code limit}, in id order after the highest
   * position given; in the caller's transaction, which holds the newest sequenced row's lock so a
   * second sequencer waits. Answers how many rows it numbered.
   *
   * <p>Two statements sent together, neither waiting for the other's answer: the locking read
   * leaves in the session the highest position ({@code @quiver_pos}), which the UPDATE counts on
   * from, and the lowest id still without one ({@code @quiver_from}: the first NULL entry of the
   * position index, which holds them in id order), where the UPDATE starts (statements on one
   * connection run in the order sent). So several shards of one host are numbered in one
   * transaction and one round trip ({@code ChangeSequencer}), each shard's pair after the one
   * before.
   *
   * <p>Why the UPDATE walks the primary key from that id rather than the position index: an UPDATE
   * that changes the key it reads by, with an ORDER BY, collects and sorts <em>every</em> row its
   * WHERE matches before it takes its LIMIT (MariaDB's guard against meeting a row it moved), so
   * numbering 1,000 rows behind a backlog of 100,000 read all 100,000 — at every pass while the
   * backlog lasted, which is how a bulk import spent 0.17 ms of MariaDB per row it logged (issue
   * 37, benchmarks/README "Bulk import"). Through the primary key, which it does not change, it
   * reads in id order and stops at its LIMIT; the numbered rows it passes on the way are only those
   * numbered while a lower id's transaction was still open. A row not yet committed is passed over
   * by both statements without waiting for its lock (READ COMMITTED: the read takes the committed
   * version, and the UPDATE's semi-consistent read finds none), so it is numbered by a later pass,
   * after the rows that became visible before it. {@code ChangesTableTest} reads MariaDB's
   * {@code Rows_read}.
   */
  public Future<Integer> sequence(SqlConnection connection, ShardRoute route, int limit) {
    String table = on(route.shard());
    Future<?> newest = connection.query("SELECT @quiver_pos := COALESCE(MAX(pos), 0) AS newest,"
        + " @quiver_from := (" + firstUnnumbered(table, "id") + ") AS first"
        + " FROM " + table + " FOR UPDATE").execute();
    Future<Integer> numbered = connection.preparedQuery("UPDATE " + table + " FORCE INDEX (PRIMARY)"
            + " SET pos = (@quiver_pos := @quiver_pos + 1) WHERE id >= @quiver_from AND pos IS NULL ORDER BY id LIMIT ?")
        .execute(Tuple.of(limit)).map(updated -> updated.rowCount());
    return Future.all(newest, numbered).map(both -> numbered.result());
  }

  /**
   * The marker a failover inserts on a shard of the replica it promoted, {@link #FAILOVER_GAP}
   * positions past the newest there, with its parameters (the write time, in µs, last). Its type
   * name is empty, which no type's is, so a reader filtering by type never answers it.
   */
  public Marker failoverMark(int shard, long writtenUs) {
    return new Marker("INSERT INTO " + on(shard) + " (pos, type_name, event, written_us)"
        + " SELECT COALESCE(MAX(pos), 0) + ?, '', CONCAT(?, COALESCE(MAX(pos), 0), ?), ? FROM " + on(shard),
        List.of(FAILOVER_GAP, FAILOVER_EVENT, "}", writtenUs));
  }

  /**
   * Whether a reader whose cursor is at {@code after} and whose next row is {@code next}, further
   * on than {@code after + 1}, has missed nothing: {@code next} is a failover's marker and the
   * reader had read up to where its jump started (the positions between were never given, or given
   * by the lost primary alone). Otherwise the rows between were trimmed.
   */
  public boolean continues(Logged next, long after) {
    Matcher marker = next.typeName().isEmpty() ? FAILOVER_AFTER.matcher(next.event()) : null;
    return marker != null && marker.find() && after >= Long.parseLong(marker.group(1));
  }

  /** The shard's oldest sequenced row; null when it holds none. */
  public Future<Logged> oldest(SqlClient client, ShardRoute route) {
    return client.query("SELECT pos, type_name, event, written_us FROM " + on(route.shard())
            + " WHERE pos IS NOT NULL ORDER BY pos LIMIT 1").execute()
        .map(rows -> rows.size() == 0 ? null : logged(rows.iterator().next()));
  }

  private static Logged logged(Row row) {
    return new Logged(row.getLong("pos"), row.getString("type_name"), row.getString("event"),
        row.getLong("written_us"));
  }

  /** A statement fleet work runs over JDBC, with its parameters in order. */
  public record Marker(String sql, List<Object> parameters) {}

  /**
   * The sequenced rows after {@code after}, in position order, at most {@code limit}; of the given
   * types only when {@code types} is not empty.
   */
  public Future<List<Logged>> read(SqlClient client, ShardRoute route, long after, Set<String> types, int limit) {
    StringBuilder sql = new StringBuilder("SELECT pos, type_name, event, written_us FROM ").append(on(route.shard()))
        .append(" WHERE pos > ?");
    List<Object> arguments = new ArrayList<>(types.size() + 2);
    arguments.add(after);
    if (!types.isEmpty()) {
      sql.append(" AND type_name IN (").append(InLists.pad(List.copyOf(types), arguments)).append(")");
    }
    sql.append(" ORDER BY pos LIMIT ?");
    arguments.add(limit);
    return client.preparedQuery(sql.toString()).execute(Tuple.wrap(arguments)).map(rows -> {
      List<Logged> logged = new ArrayList<>();
      for (Row row : rows) {
        logged.add(logged(row));
      }
      return logged;
    });
  }

  /** The oldest and newest positions the shard's log holds. */
  public Future<Bounds> bounds(SqlClient client, ShardRoute route) {
    return client.query("SELECT COALESCE(MIN(pos), 0) AS oldest, COALESCE(MAX(pos), 0) AS newest FROM "
            + on(route.shard())).execute()
        .map(rows -> {
          Row row = rows.iterator().next();
          return new Bounds(row.getLong("oldest"), row.getLong("newest"));
        });
  }

  /**
   * Deletes the oldest sequenced rows while they were written before {@code beforeUs} or lie beyond
   * the newest {@code keep} rows, at most {@code limit} of them; never the newest. Answers how many
   * went. What goes is always a prefix in position order, so what is kept has no hole: a row past
   * the retention behind a younger one waits for it (positions follow commits, so that is rare and
   * short). The row bound counts rows, not positions (a failover's jump is not a billion rows): rows
   * are inserted in id order, so the first numbered row among the newest {@code keep} ids marks
   * where the kept rows begin.
   *
   * <p>Its cost is bounded by what it deletes, not by the log's size: one row is read to see whether
   * anything is due (nearly always nothing: a trim runs every minute against a retention of days),
   * then at most {@code limit}, and the DELETE is a range of positions. A DELETE that named the age
   * in its WHERE, as this did before (issue 37), read every row of the log at each trim to find
   * none due: a scan of days of changes per shard every minute, which pushed a busy host's working
   * set out of its buffer pool.
   */
  public Future<Integer> trim(SqlClient client, ShardRoute route, long beforeUs, long keep, int limit) {
    String table = on(route.shard());
    return bounds(client, route)
        .compose(bounds -> keptFrom(client, table, keep).map(keptFrom -> new Due(bounds.newest(), beforeUs, keptFrom)))
        .compose(due -> dueThrough(client, route, due, limit))
        .compose(through -> through == 0 ? Future.succeededFuture(0)
            : client.preparedQuery("DELETE FROM " + table + " WHERE pos <= ?").execute(Tuple.of(through))
                .map(deleted -> deleted.rowCount()));
  }

  /** Which rows a trim deletes: those before {@code newest}, written before {@code beforeUs} or before {@code keptFrom}. */
  private record Due(long newest, long beforeUs, long keptFrom) {
    boolean covers(long pos, long writtenUs) {
      return pos < newest && (writtenUs < beforeUs || pos < keptFrom);
    }
  }

  /**
   * The last position of the leading run of the shard's oldest rows that is {@code due}, at most
   * {@code limit} of them; 0 when the oldest is not. The oldest is looked at first ({@link
   * #oldest(SqlClient, ShardRoute)}), so a trim with nothing due reads one row.
   */
  private Future<Long> dueThrough(SqlClient client, ShardRoute route, Due due, int limit) {
    return oldest(client, route).compose(first -> first == null || !due.covers(first.position(), first.writtenUs())
        ? Future.succeededFuture(0L)
        : client.preparedQuery("SELECT pos, written_us FROM " + on(route.shard())
                + " WHERE pos IS NOT NULL ORDER BY pos LIMIT ?").execute(Tuple.of(limit))
            .map(rows -> {
              long through = 0;
              for (Row row : rows) {
                if (!due.covers(row.getLong("pos"), row.getLong("written_us"))) {
                  break;
                }
                through = row.getLong("pos");
              }
              return through;
            }));
  }

  /** The position the newest {@code keep} rows begin at; 0 when the table holds no more than those. */
  private static Future<Long> keptFrom(SqlClient client, String table, long keep) {
    return client.query("SELECT COALESCE(MAX(id), 0) AS newest FROM " + table).execute().compose(newest -> {
      long from = newest.iterator().next().getLong("newest") - keep + 1;
      return from <= 1 ? Future.succeededFuture(0L)
          : client.preparedQuery("SELECT pos FROM " + table + " WHERE id >= ? AND pos IS NOT NULL ORDER BY id LIMIT 1")
              .execute(Tuple.of(from))
              .map(rows -> rows.size() == 0 ? 0L : rows.iterator().next().getLong("pos"));
    });
  }
}
