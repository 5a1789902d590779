package io.quiver.store.internal;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.store.BulkImport;
import io.quiver.store.BulkLine;
import io.quiver.store.BulkReport;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.sql.Connection;
import java.time.Duration;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A bulk import is not ended by a transaction that failed having written nothing: its batch's
 * transaction is run again ({@code ShardClient.Retry.UNWRITTEN}), and its figures stay exact.
 */
@ExtendWith(GraphInvariants.class)
class BulkRetryTest {
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
  void aBatchWaitingOnALockPastItsDeadline_isRunAgainOnceTheLockGoes_andItsFiguresAreExact() throws Exception {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"held\"}"), null).await().id();
    NodeId held = store.createNode("pin", json("{\"link\": \"held\"}"), null).await().id();
    NodeId free = store.createNode("pin", json("{\"link\": \"free\"}"), null).await().id();
    store.addEdge(board, "board_has_pins", held, 1L, null).await();
    String host = TestBackend.get().addressOf(board.shard());
    BulkImport run = fixture.backend.bulkImport("retry-" + UUID.randomUUID().toString().substring(0, 8)).await();
    Future<BulkReport> written;
    try (Connection holder = TestBackend.get().holdingEdgeRow(board, "board_has_pins", held)) {
      written = run.write(List.of(
          new BulkLine.EdgeLine(1, BulkLine.Endpoint.of(board), "board_has_pins", BulkLine.Endpoint.of(held), 2L,
              null, EdgeState.ACTIVE),
          new BulkLine.EdgeLine(2, BulkLine.Endpoint.of(board), "board_has_pins", BulkLine.Endpoint.of(free), 3L,
              null, EdgeState.ACTIVE)));

      Await.until("the batch's transaction waits on the lock", Duration.ofSeconds(10),
          () -> TestBackend.get().lockWaits(host) > 0);
      Await.until("its deadline passes and its statement is killed", Duration.ofSeconds(10),
          () -> TestBackend.get().lockWaits(host) == 0);
      Await.until("the transaction, run again, waits on the lock anew", Duration.ofSeconds(10),
          () -> written.failed() || TestBackend.get().lockWaits(host) > 0);
      assertThat(written.failed()).as("the import failed at the first deadline: %s", written.cause()).isFalse();
      holder.rollback();
    }

    BulkReport report = written.await();
    run.close().await();

    assertThat(report.refused()).isEmpty();
    assertThat(report.edgesCreated()).as("the free edge, written once though its transaction ran twice").isEqualTo(1);
    assertThat(report.edgesUpdated()).as("the held edge").isEqualTo(1);
    assertThat(store.getEdge(board, "board_has_pins", held).await().sequence()).isEqualTo(2L);
    assertThat(store.getEdge(board, "board_has_pins", free).await().sequence()).isEqualTo(3L);
    assertThat(store.countEdges(board, "board_has_pins").await()).isEqualTo(2L);
  }
}
