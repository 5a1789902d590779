package io.quiver.store.internal.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.internal.sql.OneHost;
import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * The change log's upkeep against a real host, on a shard database of the test's own: what a trim
 * deletes (the oldest rows while due, a prefix in position order, never the newest), and what the
 * background statements read — a trim with nothing due (what it finds nearly every minute of a
 * log's life), the sequencer's numbering and the lag figure — which must not grow with the log.
 * Reads are MariaDB's {@code Rows_read} of one session around the statement.
 */
class ChangesTableTest {
  /** A shard no test backend's map holds, so its database is this test's alone. */
  private static final int SHARD = 60_001;
  private static final long OLD_US = 1_000;
  private static final long YOUNG_US = 4_000_000_000_000_000L;
  private static final long NO_ROW_BOUND = 10_000_000;
  private static OneHost host;
  private static ShardRoute route;

  @BeforeAll
  static void start() throws Exception {
    host = new OneHost("db60001", 1, ChangesTable.INSTANCE.ddl(SHARD));
    route = host.route(SHARD);
  }

  @AfterAll
  static void stop() throws Exception {
    host.close();
  }

  @BeforeEach
  void empty() throws Exception {
    host.execute("DELETE FROM " + ChangesTable.INSTANCE.on(SHARD));
  }

  @Test
  void aTrimWithNothingDue_readsOneRowOfTheLog_notEveryRow() throws Exception {
    append(3_000, YOUNG_US);

    OneHost.Counted<Integer> deleted = rowsRead(session -> ChangesTable.INSTANCE.trim(session, route, OLD_US, NO_ROW_BOUND, 10_000));

    assertThat(deleted.answer()).isZero();
    // A DELETE naming the age in its WHERE read all 3,000 rows to find none due.
    assertThat(deleted.counted()).as("rows read by a trim with nothing due, of a 3,000-row log").isLessThan(50);
  }

  @Test
  void aTrim_deletesTheOldestRowsWhileTheyAreOld_stoppingAtTheFirstYoungOne_soWhatIsKeptHasNoHole() throws Exception {
    append(3, OLD_US);
    append(1, YOUNG_US);
    append(2, OLD_US);

    assertThat(trim(OLD_US + 1, NO_ROW_BOUND, 10_000)).isEqualTo(3);
    assertThat(positions()).containsExactly(4L, 5L, 6L);
    // Everything old now: all but the newest, which carries the position the sequencer goes on from.
    assertThat(trim(Long.MAX_VALUE, NO_ROW_BOUND, 10_000)).isEqualTo(2);
    assertThat(positions()).containsExactly(6L);
  }

  @Test
  void aTrim_deletesAtMostItsLimit_andRowsBeyondTheRowBoundWhateverTheirAge() throws Exception {
    append(6, YOUNG_US);

    assertThat(trim(OLD_US, 2, 3)).as("four beyond the bound of two, three at most at a time").isEqualTo(3);
    assertThat(positions()).containsExactly(4L, 5L, 6L);
    assertThat(trim(OLD_US, 2, 3)).isEqualTo(1);
    assertThat(positions()).containsExactly(5L, 6L);
    assertThat(trim(OLD_US, 2, 3)).as("nothing beyond the bound, nothing old").isZero();
  }

  @Test
  void numbering_readsTheRowsItNumbers_notTheLogBeforeThem() throws Exception {
    append(8_000, YOUNG_US);
    appendUnnumbered(10, OLD_US);

    OneHost.Counted<Integer> numbered = rowsRead(session -> numbering(session, 10_000));

    assertThat(numbered.answer()).isEqualTo(10);
    // In id order through the primary key, MariaDB's choice, it read the 8,000 numbered rows first.
    assertThat(numbered.counted()).as("rows read numbering 10 rows behind 8,000 numbered").isLessThan(100);
    assertThat(positions()).hasSize(8_010).last().isEqualTo(8_010L);
  }

  @Test
  void numbering_behindABacklogLargerThanItsLimit_readsTheRowsItNumbers_notTheBacklog() throws Exception {
    appendUnnumbered(5_000, YOUNG_US);

    OneHost.Counted<Integer> numbered = rowsRead(session -> numbering(session, 100));

    assertThat(numbered.answer()).isEqualTo(100);
    // Through the position index, which the UPDATE changes, MariaDB sorted all 5,000 to take the first 100.
    assertThat(numbered.counted()).as("rows read numbering 100 of 5,000 waiting").isLessThan(400);
    List<Long> positions = positionsById();
    assertThat(positions.subList(0, 100)).as("the 100 lowest ids, in id order")
        .isEqualTo(LongStream.rangeClosed(1, 100).boxed().toList());
    assertThat(positions.subList(100, 5_000)).containsOnly(0L);
  }

  @Test
  void numbering_passesOverAChangeNotYetCommitted_withoutWaitingForIt_andNumbersItAfterTheOthersOnceItCommits()
      throws Exception {
    try (Connection writer = host.admin(); Statement sql = writer.createStatement()) {
      writer.setAutoCommit(false);
      sql.execute("INSERT INTO " + ChangesTable.INSTANCE.on(SHARD)
          + " (type_name, event, written_us) VALUES ('follows', '{\"kind\": \"edge\"}', " + YOUNG_US + ")");
      appendUnnumbered(3, YOUNG_US);

      assertThat(sequenceWithin(Duration.ofSeconds(5))).as("the three committed ones, the open one's lock not waited for")
          .isEqualTo(3);
      writer.commit();
    }
    assertThat(sequenceWithin(Duration.ofSeconds(5))).isEqualTo(1);
    // The lowest id committed last: the position says when each became visible.
    assertThat(positionsById()).containsExactly(4L, 1L, 2L, 3L);
  }

  @Test
  void theLagFigure_readsOneRowPerShard_neitherTheLogNorTheBacklog() throws Exception {
    append(8_000, YOUNG_US);
    appendUnnumbered(10, OLD_US);
    appendUnnumbered(3_000, YOUNG_US);

    OneHost.Counted<Long> oldest = rowsRead(session -> ChangesTable.INSTANCE.oldestUnnumbered(session, List.of(route)));

    assertThat(oldest.answer()).as("when the first unnumbered row was written").isEqualTo(OLD_US);
    // A scan of the whole table (MariaDB's choice without the index), then the least written_us of
    // every unnumbered row: each read at every /metrics scrape.
    assertThat(oldest.counted()).as("rows read for the lag of 8,000 numbered rows and 3,010 not").isLessThan(10);
    host.pool.withConnection(session -> numbering(session, 10_000)).await();
    assertThat(host.pool.withConnection(session -> ChangesTable.INSTANCE.oldestUnnumbered(session, List.of(route)))
        .await()).as("no lag once every row is numbered").isNull();
  }

  /** Appends {@code rows} changes written at {@code writtenUs}, in one transaction, and leaves them without a position. */
  private static void appendUnnumbered(int rows, long writtenUs) {
    List<ChangesTable.Entry> entries = new ArrayList<>(Collections.nCopies(rows,
        new ChangesTable.Entry("follows", "{\"kind\": \"edge\"}")));
    host.pool.withTransaction(connection -> ChangesTable.INSTANCE.append(connection, route, entries, writtenUs))
        .await();
  }

  /** Appends {@code rows} changes written at {@code writtenUs}, in one transaction, and numbers them. */
  private static void append(int rows, long writtenUs) {
    appendUnnumbered(rows, writtenUs);
    host.pool.withConnection(session -> numbering(session, 10_000)).await();
  }

  /** Numbers at most {@code limit} waiting rows, in a transaction of {@code session}'s own. */
  private static Future<Integer> numbering(SqlConnection session, int limit) {
    return session.begin().compose(transaction -> ChangesTable.INSTANCE.sequence(session, route, limit)
        .compose(count -> transaction.commit().map(count)));
  }

  private static int trim(long beforeUs, long keep, int limit) {
    return host.pool.withConnection(connection -> ChangesTable.INSTANCE.trim(connection, route, beforeUs, keep, limit))
        .await();
  }

  /** Numbers what waits, in a transaction of its own, failing if that takes longer than {@code limit}. */
  private static int sequenceWithin(Duration limit) throws Exception {
    return host.pool.withConnection(session -> numbering(session, 10_000))
        .await(limit.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Every row's position (0 for none), in position order. */
  private static List<Long> positions() throws Exception {
    return positionsOrderedBy("pos");
  }

  /** Every row's position (0 for none), in id order. */
  private static List<Long> positionsById() throws Exception {
    return positionsOrderedBy("id");
  }

  private static List<Long> positionsOrderedBy(String column) throws Exception {
    return host.column("SELECT COALESCE(pos, 0) FROM " + ChangesTable.INSTANCE.on(SHARD) + " ORDER BY " + column)
        .stream().map(Long::valueOf).toList();
  }

  /** Runs {@code statements} on one session, reading its {@code Rows_read} (tables read, temporary ones aside) around them. */
  private static <T> OneHost.Counted<T> rowsRead(Function<SqlConnection, Future<T>> statements) {
    return host.counting("Rows_read", statements);
  }
}
