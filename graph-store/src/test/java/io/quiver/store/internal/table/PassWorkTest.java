package io.quiver.store.internal.table;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.internal.sql.OneHost;
import io.quiver.store.internal.sql.ShardRoute;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a drainer's pass asks its host first ({@link OutboxTable#shardsWithWork}): which shards have
 * outbox entries due and which hold logged changes to number, answered in one statement — all an
 * idle pass sends; and then, of a busy pass, the entries due on every shard, in one statement too
 * ({@link OutboxTable#dueOn}). Against a real host, on two shard databases of the test's own;
 * statements are counted by MariaDB's {@code Com_stmt_execute} of the session.
 */
class PassWorkTest {
  /** Shards no test backend's map holds, so their databases are this test's alone. */
  private static final int FIRST = 60_003;
  private static final int SECOND = 60_004;
  private static final long NOW_US = 5_000_000;
  private static OneHost host;
  private static List<ShardRoute> routes;

  @BeforeAll
  static void start() throws Exception {
    host = new OneHost("db60003", 1, OutboxTable.INSTANCE.ddl(FIRST), ChangesTable.INSTANCE.ddl(FIRST),
        "CREATE DATABASE IF NOT EXISTS db60004", OutboxTable.INSTANCE.ddl(SECOND), ChangesTable.INSTANCE.ddl(SECOND));
    routes = List.of(host.route(FIRST), host.route(SECOND));
  }

  @AfterAll
  static void stop() throws Exception {
    host.execute("DROP DATABASE IF EXISTS db60004");
    host.close();
  }

  @BeforeEach
  void empty() throws Exception {
    for (int shard : List.of(FIRST, SECOND)) {
      host.execute("DELETE FROM " + OutboxTable.INSTANCE.on(shard));
      host.execute("DELETE FROM " + ChangesTable.INSTANCE.on(shard));
    }
  }

  @Test
  void idleShards_answerNoWork_inOneStatement() {
    assertThat(ask()).isEqualTo(new OneHost.Counted<>(OutboxTable.Work.NONE, 1L));
  }

  @Test
  void eachShard_isAnsweredForWhatItHas_anEntryDueOrAChangeToNumberOrBoth() throws Exception {
    entry(FIRST, NOW_US);
    unnumberedChange(SECOND);

    assertThat(ask()).isEqualTo(new OneHost.Counted<>(new OutboxTable.Work(Set.of(FIRST), Set.of(SECOND)), 1L));

    unnumberedChange(FIRST);
    entry(SECOND, NOW_US);
    assertThat(ask().answer()).isEqualTo(new OutboxTable.Work(Set.of(FIRST, SECOND), Set.of(FIRST, SECOND)));
  }

  @Test
  void anEntryNotYetDue_andChangesAlreadyNumbered_areNoWork() throws Exception {
    entry(FIRST, NOW_US + 1);
    unnumberedChange(SECOND);
    host.pool.withTransaction(connection -> ChangesTable.INSTANCE.sequence(connection, routes.get(1), 100)).await();

    assertThat(ask().answer()).isEqualTo(OutboxTable.Work.NONE);
  }

  @Test
  void theEntriesDueOnEveryShard_areReadInOneStatement_eachShardsInDueOrder_atMostTheLimitEach() throws Exception {
    entry(FIRST, NOW_US - 10);
    entry(FIRST, NOW_US - 30);
    entry(FIRST, NOW_US - 20);
    entry(FIRST, NOW_US + 1);
    entry(SECOND, NOW_US);
    entry(SECOND, NOW_US - 5);
    host.execute("UPDATE " + OutboxTable.INSTANCE.on(SECOND) + " SET parked = 1 WHERE next_attempt_us = "
        + (NOW_US - 5));

    OneHost.Counted<Map<Integer, List<OutboxTable.Stored>>> read = host.counting("Com_stmt_execute",
        session -> OutboxTable.INSTANCE.dueOn(session, routes, NOW_US, 2));

    assertThat(read.counted()).as("statements executed").isEqualTo(1L);
    // Of the first shard's three due entries the two due first, in due order (the 2nd and 3rd by id; the 1st, due
    // last of them, waits for the next pass); of the second's, the one not parked.
    assertThat(dueTimes(read.answer().get(FIRST))).containsExactly(NOW_US - 30, NOW_US - 20);
    assertThat(dueTimes(read.answer().get(SECOND))).containsExactly(NOW_US);
    assertThat(read.answer()).containsOnlyKeys(FIRST, SECOND);
  }

  @Test
  void shardsWithNothingDue_areLeftOutOfTheDueEntries() throws Exception {
    entry(SECOND, NOW_US + 1);

    assertThat(OutboxTable.INSTANCE.dueOn(host.pool, routes, NOW_US, 10).await()).isEmpty();
  }

  /** When each entry fell due: the tests' entries carry it as their sequence too ({@link #entry}). */
  private static List<Long> dueTimes(List<OutboxTable.Stored> entries) {
    return entries.stream().map(entry -> entry.columns().sequence()).toList();
  }

  /** What the pass's first statement found, and how many statements the session executed for it. */
  private static OneHost.Counted<OutboxTable.Work> ask() {
    return host.counting("Com_stmt_execute", session -> OutboxTable.INSTANCE.shardsWithWork(session, routes, NOW_US));
  }

  /** An inverse entry on {@code shard}, due at {@code dueUs}, its sequence too (so tests tell entries apart). */
  private static void entry(int shard, long dueUs) throws Exception {
    host.execute("INSERT INTO " + OutboxTable.INSTANCE.on(shard) + " (kind, edge_type, from_id, to_id, state, sequence,"
        + " data, updated_us, created_us, next_attempt_us) VALUES (1, 1, 1, 2, 1, " + dueUs + ", NULL, 1, 1, " + dueUs
        + ")");
  }

  /** A logged change on {@code shard}, without a position yet. */
  private static void unnumberedChange(int shard) {
    host.pool.withTransaction(connection -> ChangesTable.INSTANCE.append(connection, host.route(shard),
        List.of(new ChangesTable.Entry("follows", "{\"kind\": \"edge\"}")), NOW_US)).await();
  }
}
