package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.store.ApplierSettings;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * After a pass that found work the drainer pauses ({@code busyPause}), and a write's wake does not
 * cut the pause short: a busy host's entries gather into fewer, larger passes. A backlog is not
 * paced: a pass that read a full batch from a shard is followed at once.
 */
@ExtendWith(GraphInvariants.class)
class DrainPacingTest {
  /** Far longer than any wait below: a pass that comes, comes because it was woken or paced. */
  private static final Duration IDLE = Duration.ofSeconds(60);
  private static final Duration BUSY_PAUSE = Duration.ofSeconds(3);
  private static final int BATCH = 10;
  private static StoreFixture fixture;
  private static ShardTables tables;

  @BeforeAll
  static void start() throws Exception {
    ApplierSettings base = TestBackend.applierSettings();
    tables = new ShardTables(TestBackend.get());
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    fixture = new StoreFixture(new ApplierSettings(base.leasePath(), BATCH, IDLE, base.maxAttempts(),
        base.maxBackoff(), base.tombstoneGrace(), base.gcInterval(), BUSY_PAUSE));
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void aWriteRightAfterABusyPass_waitsOutTheBusyPause_thenItsInverseFollows() throws Exception {
    NodeId board = fixture.store.createNode("board", json("{\"title\": \"paced\"}"), null).await().id();
    NodeId first = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), board).await().id();
    NodeId second = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), board).await().id();
    fixture.store.addEdge(board, "board_has_pins", first, 1L, null, InverseWait.ASYNC).await();
    Await.until("the first inverse", Duration.ofSeconds(10), () -> inverseWritten(first, board));
    // The pass that wrote it found work: the busy pause begins as it ends.
    long written = System.nanoTime();
    fixture.store.addEdge(board, "board_has_pins", second, 2L, null, InverseWait.ASYNC).await();

    Await.until("the second inverse, after the pause", Duration.ofSeconds(10), () -> inverseWritten(second, board));
    assertThat(Duration.ofNanos(System.nanoTime() - written))
        .as("woken during the busy pause, the drainer waits for its end (woken at once it takes milliseconds)")
        .isGreaterThanOrEqualTo(BUSY_PAUSE.dividedBy(2));
  }

  @Test
  void aBacklogOfManyBatches_drainsWithoutPausingBetweenItsPasses() throws Exception {
    NodeId board = fixture.store.createNode("board", json("{\"title\": \"backlog\"}"), null).await().id();
    int inverseType = tables.schema().edgeType("pin_owned_by_board").orElseThrow().id();
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < BATCH * 6; i++) {
      NodeId pin = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), board).await().id();
      pins.add(pin);
      tables.appendInverseEntry(board.shard(), inverseType, pin, board, true);
    }
    tables.releaseHeldBackTogether(List.of(board.shard()));
    // Appended behind Quiver's back, the backlog wakes nothing; this write does.
    NodeId last = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), board).await().id();
    fixture.store.addEdge(board, "board_has_pins", last, 1L, null, InverseWait.ASYNC).await();

    // The first pass may wait out a pause an earlier test left; from it on, the passes follow at
    // once: paced, the seven of them would take six pauses (18 s).
    Await.until("the backlog's first batch", Duration.ofSeconds(10), () -> inverseWritten(pins.get(0), board));
    Await.until("the rest of the backlog, in less than one pause", BUSY_PAUSE.minusMillis(500),
        () -> everyInverseWritten(pins, board));
  }

  private static boolean everyInverseWritten(List<NodeId> pins, NodeId board) throws Exception {
    for (NodeId pin : pins) {
      if (!inverseWritten(pin, board)) {
        return false;
      }
    }
    return true;
  }

  /** Read from MariaDB, past every cache. */
  private static boolean inverseWritten(NodeId pin, NodeId board) throws Exception {
    return tables.activeTargets("pin_owned_by_board", pin).contains(board.value());
  }
}
