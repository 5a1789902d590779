package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.quiver.store.internal.table.OutboxTable;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The drainer applies a pass's inverse entries in a transaction per shard and edge type, not one per entry. */
@ExtendWith(GraphInvariants.class)
class DrainBatchingTest {
  private static final int ENTRIES = 120;
  private static StoreFixture fixture;
  private static ShardTables tables;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
    tables = new ShardTables(TestBackend.get());
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void aBacklogOfInverseEntries_isAppliedInAFewTransactions_andEveryCopyIsWritten() throws Exception {
    Node board = fixture.store.createNode("board", json("{\"title\": \"batched\"}"), null).await();
    int shard = board.id().shard();
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < ENTRIES; i++) {
      pins.add(fixture.store.createNode("pin", json("{\"link\": \"l\"}"), board.id()).await().id());
    }
    int inverseType = tables.schema().edgeType("pin_owned_by_board").orElseThrow().id();
    for (NodeId pin : pins) {
      tables.appendInverseEntry(shard, inverseType, pin, board.id(), true);
    }

    long before = tables.commitsOnHostOf(shard);
    tables.execute(shard, "UPDATE " + OutboxTable.INSTANCE.on(shard) + " SET next_attempt_us = 0"
        + " WHERE next_attempt_us = " + ShardTables.HELD_BACK_US);
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    long commits = tables.commitsOnHostOf(shard) - before;

    assertThat(commits).as("one entry per transaction would commit %d times", ENTRIES).isLessThan(ENTRIES / 4);
    for (NodeId pin : pins) {
      assertThat(tables.activeTargets("pin_owned_by_board", pin)).containsExactly(board.id().value());
    }
  }
}
