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
    TestBackend backend = TestBackend.get();
    String host = backend.hosts().addresses().get(1);
    PoolSettings settings = backend.poolSettings();
    QueryKiller killer = new QueryKiller(300);
    Vertx vertx = Vertx.vertx();
    AtomicLong session = new AtomicLong();
    Pool requests = HostPools.pool(vertx, new Host("hk", host, List.of()), settings, new PoolOptions().setMaxSize(1),
        id -> {
          session.set(id);
          killer.opened("hk", id);
        });
    Pool own = HostPools.pool(vertx, new Host("hk", host, List.of()), settings, new PoolOptions().setMaxSize(1), null);
    try (Connection locker = backend.connect(host); Statement lock = locker.createStatement()) {
      lock.execute("CREATE DATABASE IF NOT EXISTS quiver_kill_test");
      lock.execute("CREATE TABLE IF NOT EXISTS quiver_kill_test.t (id INT PRIMARY KEY) ENGINE=InnoDB");
      SqlConnection connection = requests.getConnection().await();
      Transaction transaction = connection.begin().await();
      connection.query("INSERT INTO quiver_kill_test.t VALUES (1)").execute().await();
      // A global read lock holds the COMMIT past the killer's deadline, as a full disk would.
      lock.execute("FLUSH TABLES WITH READ LOCK");
      Future<Void> committed = transaction.commit();
      List<QueryKiller.Victim> victims = new ArrayList<>();
      Await.until("the COMMIT past the deadline", Duration.ofSeconds(10), () -> {
        victims.clear();
        victims.addAll(killer.victims("hk", own).await());
        return victims.stream().anyMatch(victim -> victim.id() == session.get() && victim.commit());
      });
      // The space is freed, so to speak: the COMMIT ends before the kill arrives.
      lock.execute("UNLOCK TABLES");
      committed.await();
      Future<RowSet<Row>> next = connection.query("SELECT SLEEP(1)").execute();
      Await.until("the session's next statement", Duration.ofSeconds(10), () -> running(host, session.get(), "SELECT SLEEP"));

      assertThat(killer.kill("hk", own, victims).await()).as("statements killed").isZero();
      assertThat(next.await().iterator().next().getInteger(0)).as("SLEEP answers 1 when interrupted").isZero();
      connection.close().await();
      lock.execute("DROP DATABASE quiver_kill_test");
    } finally {
      requests.close().await();
      own.close().await();
      vertx.close().await();
    }
  }

  @Test
  void whenTheChangeLogIsReadFromTheBinaryLog_aCommitPastItsDeadlineIsLeftToFinish_andOtherStatementsAreKilled()
      throws Exception {
    TestBackend backend = TestBackend.get();
    String host = backend.hosts().addresses().get(1);
    PoolSettings settings = backend.poolSettings();
    QueryKiller killer = new QueryKiller(300, true);
    Vertx vertx = Vertx.vertx();
    List<Long> sessions = new java.util.concurrent.CopyOnWriteArrayList<>();
    Pool requests = HostPools.pool(vertx, new Host("hk", host, List.of()), settings, new PoolOptions().setMaxSize(2),
        id -> {
          sessions.add(id);
          killer.opened("hk", id);
        });
    Pool own = HostPools.pool(vertx, new Host("hk", host, List.of()), settings, new PoolOptions().setMaxSize(1), null);
    try (Connection locker = backend.connect(host); Statement lock = locker.createStatement()) {
      lock.execute("CREATE DATABASE IF NOT EXISTS quiver_spare_test");
      lock.execute("CREATE TABLE IF NOT EXISTS quiver_spare_test.t (id INT PRIMARY KEY) ENGINE=InnoDB");
      lock.execute("DELETE FROM quiver_spare_test.t");
      SqlConnection committing = requests.getConnection().await();
      Transaction transaction = committing.begin().await();
      committing.query("INSERT INTO quiver_spare_test.t VALUES (1)").execute().await();
      SqlConnection sleeping = requests.getConnection().await();
      // A global read lock holds the COMMIT past the deadline, as a full disk would; beside it, a
      // statement that is not committing runs past the deadline too.
      lock.execute("FLUSH TABLES WITH READ LOCK");
      Future<Void> committed = transaction.commit();
      Future<RowSet<Row>> slept = sleeping.query("SELECT SLEEP(5)").execute();
      Await.until("both statements past the deadline", Duration.ofSeconds(10),
          () -> running(host, sessions.get(0), "COMMIT") && running(host, sessions.get(1), "SELECT SLEEP")
              && killer.victims("hk", own).await().size() == 1);

      List<QueryKiller.Victim> victims = killer.victims("hk", own).await();
      assertThat(victims).as("the sleeping statement, not the COMMIT").singleElement()
          .satisfies(victim -> assertThat(victim.commit()).isFalse());
      assertThat(killer.kill("hk", own, victims).await()).as("statements killed").isEqualTo(1);
      slept.otherwiseEmpty().await();
      lock.execute("UNLOCK TABLES");
      committed.await();
      try (ResultSet rows = lock.executeQuery("SELECT COUNT(*) FROM quiver_spare_test.t")) {
        rows.next();
        assertThat(rows.getLong(1)).as("the spared COMMIT committed once the lock was gone").isEqualTo(1);
      }
      committing.close().await();
      sleeping.close().otherwiseEmpty().await();
      lock.execute("DROP DATABASE quiver_spare_test");
    } finally {
      requests.close().await();
      own.close().await();
      vertx.close().await();
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
