package io.quiver.store.internal.sql;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.store.GraphStore;
import io.quiver.store.NodeId;
import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Transaction;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A statement this server stopped waiting for is killed on its host ({@link QueryKiller}), so its
 * connection and its place in a lock queue come back at the deadline, not when MySQL gives up
 * (innodb_lock_wait_timeout, 50 s by default) or the disk has space again.
 */
@ExtendWith(GraphInvariants.class)
class QueryKillerTest {
  private static StoreFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void aWriteWaitingOnALockPastItsDeadline_isAnswered503_andItsStatementIsKilledOnTheHost() throws Exception {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"locked\"}"), null).await().id();
    NodeId pin = store.createNode("pin", json("{\"link\": \"l\"}"), null).await().id();
    store.addEdge(board, "board_has_pins", pin, 1L, null).await();
    String host = TestBackend.get().addressOf(board.shard());
    try (Connection holder = TestBackend.get().holdingEdgeRow(board, "board_has_pins", pin)) {
      Future<?> waiting = store.addEdge(board, "board_has_pins", pin, 2L, null);
      waiting.otherwiseEmpty().await();
      assertThat(waiting.cause()).isInstanceOf(GraphException.class);
      assertThat(((GraphException) waiting.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);

      long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (TestBackend.get().lockWaits(host) > 0) {
        assertThat(System.nanoTime()).as("the waiting statement is killed soon after its deadline").isLessThan(deadline);
      }
      holder.rollback();
    }
    assertThat(store.getEdge(board, "board_has_pins", pin).await().sequence()).as("the write did not happen")
        .isEqualTo(1L);
  }

  @Test
  void aKillMeantForACommitThatEndedMeanwhile_neverReachesTheSessionsNextStatement() throws Exception {
    try (HeldCommit held = new HeldCommit(new QueryKiller(300))) {
      List<QueryKiller.Victim> victims = held.awaitVictim();
      // The space is freed, so to speak: the COMMIT ends before the kill arrives.
      held.release();
      held.committed.await();
      Future<RowSet<Row>> next = held.connection.query("SELECT SLEEP(1)").execute();
      Await.until("the session's next statement", Duration.ofSeconds(10),
          () -> running(held.host, held.session.get(), "SELECT SLEEP"));

      assertThat(held.killer.kill("hk", held.own, victims).await()).as("statements killed").isZero();
      assertThat(next.await().iterator().next().getInteger(0)).as("SLEEP answers 1 when interrupted").isZero();
    }
  }

  @Test
  void whenTheChangeLogIsReadFromTheBinaryLog_aCommitHeldButNotByASpaceWait_isKilledAsBefore() throws Exception {
    // Sparing commits, but only while a session of the host waits for binary-log space
    // (TailedFullDiskTest): a COMMIT held by anything else, as by a replica that does not confirm
    // it, is in the binary log or will be, and is killed as with the log written by the writes.
    try (HeldCommit held = new HeldCommit(new QueryKiller(300, true))) {
      assertThat(held.awaitVictim()).as("the held COMMIT, a victim").isNotEmpty();
    }
  }

  /**
   * A COMMIT held past the killer's deadline on the second host by a global read lock, as a full
   * disk would hold it, on the one session of a pool that {@code killer} watches.
   */
  private static final class HeldCommit implements AutoCloseable {
    final String host = TestBackend.get().hosts().addresses().get(1);
    final QueryKiller killer;
    final Vertx vertx = Vertx.vertx();
    final AtomicLong session = new AtomicLong();
    final Pool requests;
    final Pool own;
    final Connection locker;
    final Statement lock;
    final SqlConnection connection;
    final Future<Void> committed;

    HeldCommit(QueryKiller killer) throws Exception {
      this.killer = killer;
      PoolSettings settings = TestBackend.get().poolSettings();
      requests = HostPools.pool(vertx, new Host("hk", host, List.of()), settings, new PoolOptions().setMaxSize(1),
          id -> {
            session.set(id);
            killer.opened("hk", id);
          });
      own = HostPools.pool(vertx, new Host("hk", host, List.of()), settings, new PoolOptions().setMaxSize(1), null);
      locker = TestBackend.get().connect(host);
      lock = locker.createStatement();
      lock.execute("CREATE DATABASE IF NOT EXISTS quiver_kill_test");
      lock.execute("CREATE TABLE IF NOT EXISTS quiver_kill_test.t (id INT PRIMARY KEY) ENGINE=InnoDB");
      lock.execute("DELETE FROM quiver_kill_test.t");
      connection = requests.getConnection().await();
      Transaction transaction = connection.begin().await();
      connection.query("INSERT INTO quiver_kill_test.t VALUES (1)").execute().await();
      lock.execute("FLUSH TABLES WITH READ LOCK");
      committed = transaction.commit();
    }

    /** The killer's victims once the held COMMIT is among them. */
    List<QueryKiller.Victim> awaitVictim() throws InterruptedException {
      List<QueryKiller.Victim> victims = new ArrayList<>();
      Await.until("the COMMIT past the deadline", Duration.ofSeconds(10), () -> {
        victims.clear();
        victims.addAll(killer.victims("hk", own).await());
        return victims.stream().anyMatch(victim -> victim.id() == session.get() && victim.commit());
      });
      return victims;
    }

    void release() throws Exception {
      lock.execute("UNLOCK TABLES");
    }

    @Override
    public void close() throws Exception {
      try {
        release();
        committed.otherwiseEmpty().await();
        connection.close().await();
        lock.execute("DROP DATABASE quiver_kill_test");
        locker.close();
      } finally {
        requests.close().await();
        own.close().await();
        vertx.close().await();
      }
    }
  }

  private static boolean running(String host, long session, String statement) throws Exception {
    try (Connection connection = TestBackend.get().connect(host);
        Statement sql = connection.createStatement();
        ResultSet rows = sql.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + session
            + " AND INFO LIKE '" + statement + "%'")) {
      rows.next();
      return rows.getLong(1) == 1;
    }
  }
}
