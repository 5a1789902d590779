package io.quiver.store.internal.sql;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.GraphStore;
import io.quiver.store.NodeId;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
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
    EdgesTable table = new EdgesTable(TestBackend.get().schema().edgeType("board_has_pins").orElseThrow());
    String host = TestBackend.get().hosts().addresses().get(board.shard() < 4 ? 0 : 1);
    try (Connection holder = DriverManager.getConnection("jdbc:mysql://" + host + "/", TestBackend.get().hosts().user(),
        TestBackend.get().hosts().password())) {
      holder.setAutoCommit(false);
      try (Statement lock = holder.createStatement()) {
        lock.executeQuery("SELECT * FROM " + table.on(board.shard()) + " WHERE from_id = " + board.value()
            + " AND to_id = " + pin.value() + " FOR UPDATE").close();
      }

      Future<?> waiting = store.addEdge(board, "board_has_pins", pin, 2L, null);
      waiting.otherwiseEmpty().await();
      assertThat(waiting.cause()).isInstanceOf(GraphException.class);
      assertThat(((GraphException) waiting.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);

      long deadline = System.nanoTime() + Duration.ofSeconds(3).toNanos();
      while (lockWaits(host) > 0) {
        assertThat(System.nanoTime()).as("the waiting statement is killed soon after its deadline").isLessThan(deadline);
        // InnoDB refreshes what INNODB_LOCK_WAITS shows only after 100 ms without a read of it:
        // polled faster, it would show the killed wait forever.
        Thread.sleep(150);
      }
      holder.rollback();
    }
    assertThat(store.getEdge(board, "board_has_pins", pin).await().sequence()).as("the write did not happen")
        .isEqualTo(1L);
  }

  private static long lockWaits(String host) throws Exception {
    try (Connection connection = DriverManager.getConnection("jdbc:mysql://" + host + "/",
            TestBackend.get().hosts().user(), TestBackend.get().hosts().password());
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS")) {
      rows.next();
      return rows.getLong(1);
    }
  }
}
