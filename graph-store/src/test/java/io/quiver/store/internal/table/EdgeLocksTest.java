package io.quiver.store.internal.table;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.quiver.schema.Schema;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import io.quiver.store.internal.sql.OneHost;
import io.quiver.store.internal.sql.Returning;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import java.sql.Connection;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a write of an edge locks before it writes, against a real host on a shard database of the
 * test's own: its FROM node's row shared (a node update or delete waits for the write; another
 * writer of the node's edges does not) and the edge's row exclusive, both in one statement
 * ({@link EdgesTable#readLockedFrom}), and the same for a batch ({@link EdgesTable#readLockedManyFrom});
 * and on MariaDB the same locks taken by the upserts that write as they lock ({@link EdgesTable#upsertFrom},
 * {@link EdgesTable#upsertTombstone}), with what they answer. Statements are counted by MariaDB's {@code Com_stmt_execute} of the session.
 */
class EdgeLocksTest {
  /** A shard no test backend's map holds, so its database is this test's alone. */
  private static final int SHARD = 60_002;
  private static OneHost host;
  private static ShardRoute route;
  private static NodesTable boards;
  private static EdgesTable pins;

  @BeforeAll
  static void start() throws Exception {
    Schema schema = TestBackend.get().schema();
    boards = new NodesTable(schema.nodeType("board").orElseThrow());
    pins = new EdgesTable(schema.edgeType("board_has_pins").orElseThrow());
    host = new OneHost("db60002", 2, boards.ddl(SHARD), pins.ddl(SHARD), CountsTable.INSTANCE.ddl(SHARD));
    route = host.route(SHARD);
  }

  @AfterAll
  static void stop() throws Exception {
    host.close();
  }

  @BeforeEach
  void empty() throws Exception {
    host.execute("DELETE FROM " + boards.on(SHARD));
    host.execute("DELETE FROM " + pins.on(SHARD));
    host.execute("DELETE FROM " + CountsTable.INSTANCE.on(SHARD));
  }

  @Test
  void readLockedFrom_answersWhetherTheNodeExistsAndTheEdgesRow_inOneStatement() throws Exception {
    NodeId board = board(1);
    NodeId gone = NodeId.of(SHARD, boards.type().id(), 2);
    edge(board, 10, 7);
    edge(gone, 10, 8);

    OneHost.Counted<EdgesTable.LockedFrom> both = inTransaction(session -> pins.readLockedFrom(session, route, boards, board, 10));
    assertThat(both.counted()).as("statements sent for the node's lock and the row's").isEqualTo(1);
    assertThat(both.answer().fromExists()).isTrue();
    assertThat(both.answer().row().sequence()).isEqualTo(7);
    assertThat(both.answer().row().data()).isEqualTo("{\"note\": \"x\"}");

    EdgesTable.LockedFrom noRow = inTransaction(session -> pins.readLockedFrom(session, route, boards, board, 11))
        .answer();
    assertThat(noRow).isEqualTo(new EdgesTable.LockedFrom(true, null));

    EdgesTable.LockedFrom noNode = inTransaction(session -> pins.readLockedFrom(session, route, boards, gone, 10))
        .answer();
    assertThat(noNode.fromExists()).isFalse();
    assertThat(noNode.row().sequence()).as("a row of a node that is gone is still answered").isEqualTo(8);

    assertThat(inTransaction(session -> pins.readLockedFrom(session, route, boards, gone, 11)).answer())
        .isEqualTo(new EdgesTable.LockedFrom(false, null));
  }

  @Test
  void readLockedFrom_sharesTheNodesLock_andHoldsTheEdgesRowAlone() throws Exception {
    NodeId board = board(1);
    edge(board, 10, 7);
    edge(board, 11, 9);

    holding(session -> pins.readLockedFrom(session, route, boards, board, 10), () -> {
      try (Connection other = contender()) {
        assertThat(rows(other, "SELECT 1 FROM " + boards.on(SHARD) + " WHERE local_id = " + board.local()
            + " LOCK IN SHARE MODE")).as("another writer of the node's edges shares its lock").isEqualTo(1);
        assertThat(rows(other, "SELECT 1 FROM " + pins.on(SHARD) + " WHERE from_id = " + board.value()
            + " AND to_id = 11 FOR UPDATE")).as("another edge of the node is not held").isEqualTo(1);
        assertLockWait(other, "UPDATE " + boards.on(SHARD) + " SET version = version + 1 WHERE local_id = "
            + board.local());
        assertLockWait(other, "SELECT 1 FROM " + pins.on(SHARD) + " WHERE from_id = " + board.value()
            + " AND to_id = 10 LOCK IN SHARE MODE");
      }
    });
  }

  @Test
  void readLockedManyFrom_answersTheNodesThatExistAndTheStoredRows_inOneStatement_andLocksThem() throws Exception {
    NodeId first = board(1);
    NodeId second = board(2);
    NodeId gone = NodeId.of(SHARD, boards.type().id(), 3);
    edge(first, 10, 7);
    edge(second, 20, 8);
    List<EdgesTable.Key> keys = List.of(new EdgesTable.Key(first.value(), 10), new EdgesTable.Key(first.value(), 11),
        new EdgesTable.Key(second.value(), 20), new EdgesTable.Key(gone.value(), 30));

    OneHost.Counted<EdgesTable.LockedMany> locked = inTransaction(session -> pins.readLockedManyFrom(session, route, boards,
        List.of(first, second, gone), keys));

    assertThat(locked.counted()).as("statements sent for the nodes' locks and the rows'").isEqualTo(1);
    assertThat(locked.answer().fromsPresent()).containsExactlyInAnyOrder(first, second);
    assertThat(locked.answer().rows()).containsOnlyKeys(keys.get(0), keys.get(2));
    assertThat(locked.answer().rows().get(keys.get(2)).sequence()).isEqualTo(8);

    Map<EdgesTable.Key, ?> rowsAlone = inTransaction(session -> pins.readLockedManyFrom(session, route, boards,
        List.of(), keys)).answer().rows();
    assertThat(rowsAlone).as("no nodes asked about: the rows alone").containsOnlyKeys(keys.get(0), keys.get(2));

    holding(session -> pins.readLockedManyFrom(session, route, boards, List.of(first), keys.subList(0, 1)), () -> {
      try (Connection other = contender()) {
        assertLockWait(other, "DELETE FROM " + boards.on(SHARD) + " WHERE local_id = " + first.local());
        assertLockWait(other, "SELECT 1 FROM " + pins.on(SHARD) + " WHERE from_id = " + first.value()
            + " AND to_id = 10 FOR UPDATE");
        assertThat(rows(other, "SELECT 1 FROM " + boards.on(SHARD) + " WHERE local_id = " + first.local()
            + " LOCK IN SHARE MODE")).isEqualTo(1);
      }
    });
  }

  @Test
  void upserts_onMariaDb_andOnlyThere() throws Exception {
    SqlConnection session = host.pool.getConnection().await();
    try {
      boolean mariaDb = session.databaseMetadata().fullVersion().contains("MariaDB");
      assertThat(Returning.answers(session)).as(session.databaseMetadata().fullVersion()).isEqualTo(mariaDb);
    } finally {
      session.close().await();
    }
  }

  @Test
  void upsertFrom_writesTheRowAndAnswersWhatItReplaced_inOneStatement_andWithTheNodeGoneWritesNothing()
      throws Exception {
    assumeUpserts();
    NodeId board = board(1);
    NodeId gone = NodeId.of(SHARD, boards.type().id(), 2);
    edge(board, 10, 7);
    edge(gone, 10, 8);

    OneHost.Counted<EdgesTable.Upserted> kept = inTransaction(session -> pins.upsertFrom(session, route, boards, board,
        10, null, EdgeRow.ACTIVE, null, 100));
    assertThat(kept.counted()).as("statements for the node's lock, the row's write and its old columns").isEqualTo(1);
    assertThat(kept.answer().before()).isEqualTo(new EdgeRow(7, EdgeRow.ACTIVE, "{\"note\": \"x\"}", 1));
    assertThat(kept.answer().after()).as("an active edge's sequence and data kept")
        .isEqualTo(new EdgeRow(7, EdgeRow.ACTIVE, "{\"note\": \"x\"}", 100));

    EdgesTable.Upserted fresh = inTransaction(session -> pins.upsertFrom(session, route, boards, board, 10, 3L,
            EdgeRow.ARCHIVED, "{}", 100)
        .compose(first -> pins.upsertFrom(session, route, boards, board, 12, null, EdgeRow.ACTIVE, null, 200)))
        .answer();
    assertThat(fresh.before()).as("what the statement before left in the session is not this row's").isNull();
    assertThat(fresh.after()).isEqualTo(new EdgeRow(200, EdgeRow.ACTIVE, null, 200));

    host.execute("UPDATE " + pins.on(SHARD) + " SET updated_us = 5000, state = " + EdgeRow.ARCHIVED
        + " WHERE to_id = 10");
    EdgesTable.Upserted later = inTransaction(session -> pins.upsertFrom(session, route, boards, board, 10, null,
        EdgeRow.ACTIVE, null, 100)).answer();
    assertThat(later.after()).as("an archived edge's sequence and data not kept; the write lands after the stored one")
        .isEqualTo(new EdgeRow(100, EdgeRow.ACTIVE, null, 5001));

    OneHost.Counted<EdgeRow> refused = inTransaction(session -> pins.upsertFrom(session, route, boards, gone, 10, 99L,
            EdgeRow.ACTIVE, null, 100)
        .compose(upserted -> {
          assertThat(upserted).as("the node is gone").isNull();
          return pins.readLocked(session, route, gone.value(), 10);
        }));
    assertThat(refused.answer().sequence()).as("the row as it was").isEqualTo(8);
    assertThat(inTransaction(session -> pins.upsertFrom(session, route, boards, gone, 11, 99L, EdgeRow.ACTIVE, null,
        100).compose(upserted -> pins.readLocked(session, route, gone.value(), 11))).answer())
        .as("no row inserted").isNull();
  }

  @Test
  void upsertFrom_sharesTheNodesLock_andHoldsTheEdgesRowAlone() throws Exception {
    assumeUpserts();
    NodeId board = board(1);
    edge(board, 10, 7);
    edge(board, 11, 9);

    holding(session -> pins.upsertFrom(session, route, boards, board, 10, 8L, EdgeRow.ACTIVE, null, 100), () -> {
      try (Connection other = contender()) {
        assertThat(rows(other, "SELECT 1 FROM " + boards.on(SHARD) + " WHERE local_id = " + board.local()
            + " LOCK IN SHARE MODE")).as("another writer of the node's edges shares its lock").isEqualTo(1);
        assertThat(rows(other, "SELECT 1 FROM " + pins.on(SHARD) + " WHERE from_id = " + board.value()
            + " AND to_id = 11 FOR UPDATE")).as("another edge of the node is not held").isEqualTo(1);
        assertLockWait(other, "DELETE FROM " + boards.on(SHARD) + " WHERE local_id = " + board.local());
        assertLockWait(other, "SELECT 1 FROM " + pins.on(SHARD) + " WHERE from_id = " + board.value()
            + " AND to_id = 10 LOCK IN SHARE MODE");
      }
    });
  }

  @Test
  void upsertTombstone_keepsSequenceAndData_landsAfterTheStoredWrite_andAnswersWhatItReplaced() throws Exception {
    assumeUpserts();
    NodeId board = board(1);
    edge(board, 10, 7);

    OneHost.Counted<EdgesTable.Upserted> removed = inTransaction(session -> pins.upsertTombstone(session, route,
        board.value(), 10, 100));
    assertThat(removed.counted()).isEqualTo(1);
    assertThat(removed.answer()).isEqualTo(new EdgesTable.Upserted(
        new EdgeRow(7, EdgeRow.ACTIVE, "{\"note\": \"x\"}", 1), new EdgeRow(7, EdgeRow.DELETED, "{\"note\": \"x\"}", 100)));
    assertThat(inTransaction(session -> pins.upsertTombstone(session, route, board.value(), 10, 0)).answer().after()
        .updatedUs()).as("later than the stored write, whatever this server's clock says").isEqualTo(2);
    assertThat(inTransaction(session -> pins.upsertFrom(session, route, boards, board, 10, null, EdgeRow.ACTIVE,
            null, 100).compose(first -> pins.upsertTombstone(session, route, board.value(), 20, 300))).answer())
        .as("a tombstone where there was no row")
        .isEqualTo(new EdgesTable.Upserted(null, new EdgeRow(0, EdgeRow.DELETED, null, 300)));
  }

  @Test
  void writeMany_numbersEachListsChangesInTheOrderItWritesThem_fromTheVersionsItsCountsStatementAnswers() throws Exception {
    NodeId first = board(1);
    NodeId second = board(2);
    NodeId third = board(3);
    edge(first, 10, 7);
    host.execute("INSERT INTO " + CountsTable.INSTANCE.on(SHARD) + " (from_id, edge_type, count, version) VALUES ("
        + first.value() + ", " + pins.type().id() + ", 1, 5)");
    EdgeRow stored = new EdgeRow(7, EdgeRow.ACTIVE, "{\"note\": \"x\"}", 1);
    EdgeRow added = new EdgeRow(9, EdgeRow.ACTIVE, null, 50);
    // Three lists, so the counts' statement is padded to four rows.
    List<EdgesTable.Rewrite> rewrites = List.of(
        new EdgesTable.Rewrite(new EdgesTable.Key(first.value(), 10), stored, stored.removedAt(50)),
        new EdgesTable.Rewrite(new EdgesTable.Key(first.value(), 11), null, added),
        new EdgesTable.Rewrite(new EdgesTable.Key(second.value(), 20), null, added),
        new EdgesTable.Rewrite(new EdgesTable.Key(third.value(), 30), null, added));

    OneHost.Counted<Batch> written = inTransaction(session -> pins.writeMany(session, route, rewrites)
        .compose(changed -> CountsTable.INSTANCE.versions(session, route, pins.type().id(),
                List.of(first.value(), second.value(), third.value()))
            .map(held -> new Batch(changed, held))));

    List<GraphChange.EdgeChanged> changed = written.answer().changed();
    assertThat(changed).extracting(GraphChange.EdgeChanged::listVersion)
        .as("each list's changes numbered in the order their rows are written — the batch's new rows before its"
            + " stored ones, as the binary log holds them — up to the version its count row holds")
        .containsExactly(7L, 6L, 1L, 1L);
    assertThat(changed).extracting(GraphChange.EdgeChanged::countDelta).containsExactly(-1, 1, 1, 1);
    assertThat(written.answer().held()).as("what the count rows hold after the batch")
        .isEqualTo(Map.of(first.value(), 7L, second.value(), 1L, third.value(), 1L));
    long versionsRead = upserts() ? 0 : 1;
    assertThat(written.counted()).as("the batch's statements (new rows, stored rows, counts; on MySQL the versions"
        + " read back), and the test's own read").isEqualTo(3 + versionsRead + 1);
  }

  /** What a batch answered, and what its lists' count rows then held. */
  private record Batch(List<GraphChange.EdgeChanged> changed, Map<Long, Long> held) {}

  /** The upserts are MariaDB's ({@link Returning#answers}); elsewhere a write reads its row first. */
  private static void assumeUpserts() throws Exception {
    assumeTrue(upserts(), "the host does not run the upserts");
  }

  /** Whether the test's host answers {@code INSERT … RETURNING}, as {@link Returning#answers} asks. */
  private static boolean upserts() throws Exception {
    SqlConnection session = host.pool.getConnection().await();
    try {
      return Returning.answers(session);
    } finally {
      session.close().await();
    }
  }

  private static NodeId board(long local) throws Exception {
    host.execute("INSERT INTO " + boards.on(SHARD) + " (local_id, data, version, created_at, updated_at) VALUES ("
        + local + ", '{}', 1, NOW(6), NOW(6))");
    return NodeId.of(SHARD, boards.type().id(), local);
  }

  private static void edge(NodeId from, long to, long sequence) throws Exception {
    host.execute("INSERT INTO " + pins.on(SHARD) + " (from_id, to_id, sequence, state, data, updated_us) VALUES ("
        + from.value() + ", " + to + ", " + sequence + ", " + EdgeRow.ACTIVE + ", '{\"note\": \"x\"}', 1)");
  }

  /** Runs {@code statements} in a transaction of one session, rolled back, counting the statements it executed. */
  private static <T> OneHost.Counted<T> inTransaction(Function<SqlConnection, Future<T>> statements) {
    return host.counting("Com_stmt_execute", session -> session.begin()
        .compose(transaction -> statements.apply(session).compose(answer -> transaction.rollback().map(answer))));
  }

  /** Runs {@code locking} in a transaction left open while {@code meanwhile} runs, then rolls it back. */
  private static void holding(Function<SqlConnection, Future<?>> locking, Checks meanwhile) throws Exception {
    SqlConnection session = host.pool.getConnection().await();
    try {
      Transaction transaction = session.begin().await();
      locking.apply(session).await();
      try {
        meanwhile.run();
      } finally {
        transaction.rollback().await();
      }
    } finally {
      session.close().await();
    }
  }

  private interface Checks {
    void run() throws Exception;
  }

  /** A JDBC session of the test's own, in a transaction, giving up on a lock after a second. */
  private static Connection contender() throws Exception {
    Connection other = host.admin();
    try (Statement sql = other.createStatement()) {
      sql.execute("SET SESSION innodb_lock_wait_timeout = 1");
    }
    other.setAutoCommit(false);
    return other;
  }

  private static int rows(Connection connection, String query) throws SQLException {
    try (Statement sql = connection.createStatement(); var rows = sql.executeQuery(query)) {
      int count = 0;
      while (rows.next()) {
        count++;
      }
      return count;
    }
  }

  private static void assertLockWait(Connection connection, String statement) {
    assertThatThrownBy(() -> {
      try (Statement sql = connection.createStatement()) {
        sql.execute(statement);
      }
    }).as("%s waits for the lock", statement).isInstanceOf(SQLException.class)
        .hasMessageContaining("Lock wait timeout");
  }
}
