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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The drainer applies a pass's inverse entries in a transaction per host they are written to: not
 * one per entry, nor one per shard read and shard written; and it deletes the entries it handled
 * on a host's shards under one COMMIT, not one per shard.
 */
@ExtendWith(GraphInvariants.class)
class DrainBatchingTest {
  private static final int ENTRIES = 120;
  private static final int PINS_PER_SHARD = 5;
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
  void entriesWaitingOnEveryShardOfAHost_areWrittenToAnotherHostInOneTransaction_notOnePerPairOfShards()
      throws Exception {
    Map<Integer, NodeId> boards = nodesOnEveryShard();
    int inverseType = tables.schema().edgeType("pin_owned_by_board").orElseThrow().id();
    List<Integer> sources = List.of(0, 1, 2, 3);
    List<Integer> targets = List.of(4, 5, 6, 7);
    Map<NodeId, List<Long>> expected = new HashMap<>();
    for (int target : targets) {
      for (int i = 0; i < PINS_PER_SHARD; i++) {
        NodeId pin = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), boards.get(target)).await().id();
        for (int source : sources) {
          tables.appendInverseEntry(source, inverseType, pin, boards.get(source), true);
          expected.computeIfAbsent(pin, held -> new ArrayList<>()).add(boards.get(source).value());
        }
      }
    }

    long before = tables.commitsOnHostOf(targets.get(0));
    tables.releaseHeldBackTogether(sources);
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    long commits = tables.commitsOnHostOf(targets.get(0)) - before;

    int pairs = sources.size() * targets.size();
    assertThat(commits).as("a transaction per shard read and shard written would commit %d times", pairs)
        .isLessThan(pairs);
    for (Map.Entry<NodeId, List<Long>> pin : expected.entrySet()) {
      assertThat(tables.activeTargets("pin_owned_by_board", pin.getKey()))
          .containsExactlyInAnyOrderElementsOf(pin.getValue());
    }
  }

  @Test
  void theEntriesAPassHandledOnEveryShardOfAHost_areDeletedUnderOneCommit_notOnePerShard() throws Exception {
    Map<Integer, NodeId> boards = nodesOnEveryShard();
    int inverseType = tables.schema().edgeType("pin_owned_by_board").orElseThrow().id();
    List<Integer> sources = List.of(0, 1, 2, 3);
    Map<NodeId, Long> expected = new HashMap<>();
    for (int source : sources) {
      for (int i = 0; i < PINS_PER_SHARD; i++) {
        // Each inverse copy lands on the other host (shards 4-7): the sources' host writes only the deletions.
        NodeId pin = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), boards.get(4 + i % 4)).await().id();
        tables.appendInverseEntry(source, inverseType, pin, boards.get(source), true);
        expected.put(pin, boards.get(source).value());
      }
    }

    long before = tables.writtenTransactionsOnHostOf(sources.get(0));
    tables.releaseHeldBackTogether(sources);
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    // Less the release's own transaction.
    long written = tables.writtenTransactionsOnHostOf(sources.get(0)) - before - 1;

    assertThat(written).as("transactions written on the entries' host; a deletion per shard would be %d",
        sources.size()).isLessThan(sources.size());
    for (Map.Entry<NodeId, Long> pin : expected.entrySet()) {
      assertThat(tables.activeTargets("pin_owned_by_board", pin.getKey())).containsExactly(pin.getValue());
    }
  }

  /** A board on each of the fleet's shards (placement is random: boards are created until every shard has one). */
  private static Map<Integer, NodeId> nodesOnEveryShard() throws Exception {
    Map<Integer, NodeId> boards = new HashMap<>();
    for (int i = 0; i < 500 && boards.size() < TestBackend.SHARDS; i++) {
      NodeId board = fixture.store.createNode("board", json("{\"title\": \"spread\"}"), null).await().id();
      boards.putIfAbsent(board.shard(), board);
    }
    assertThat(boards).as("boards on every shard").hasSize(TestBackend.SHARDS);
    return boards;
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
