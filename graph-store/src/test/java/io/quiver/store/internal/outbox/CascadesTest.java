package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.Edge;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeResult;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * What a node's cascades do to its edges ({@link Cascades}).
 *
 * <p>The delete rule: once a cascading deletion has drained, the deleted node has no edges, in or
 * out, active or archived — also when edges to it are added while it is being deleted, or after.
 * An edge added to a node that is gone is acknowledged (its forward copy commits on the other
 * node's shard), and removed again when its inverse finds the node missing: the inverse writer
 * never creates edges from a node that does not exist.
 *
 * <p>A node's edges archived and restored in bulk (an account suspended, then reinstated): both
 * copies of every edge follow, lists and counts empty and fill again, and each edge comes back
 * whole.
 */
@ExtendWith(GraphInvariants.class)
class CascadesTest {
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
  void aWriteFromTheOtherSideToAnEdgeOfANodeDeletedWithoutCascade_removesBothCopies() throws Exception {
    GraphStore store = fixture.store;
    NodeId x = store.createNode("user", json("{\"name\": \"x\"}"), null).await().id();
    NodeId y = store.createNode("user", json("{\"name\": \"y\"}"), null).await().id();
    store.addEdge(x, "follows", y, 1L, null, InverseWait.APPLIED).await();
    store.deleteNode(x, GraphStore.Cascade.NONE).await();
    assertThat(store.getEdge(y, "followed_by", x).await().sequence()).as("no cascade: the edge stays").isEqualTo(1L);

    EdgeResult rewritten = store.addEdge(y, "followed_by", x, 2L, null, InverseWait.APPLIED).await();

    assertThat(rewritten.inverse()).as("the answer says the edge went with its node").isEqualTo(EdgeResult.Inverse.REMOVED);
    EdgeRow forward = tables.edges("follows").get(new ShardTables.Key(x.value(), y.value()));
    EdgeRow inverse = tables.edges("followed_by").get(new ShardTables.Key(y.value(), x.value()));
    assertThat(forward.live()).as("x -> y, on the deleted node's shard: %s", forward).isFalse();
    assertThat(inverse).as("both copies end on one tombstone").isEqualTo(forward);
    assertThat(store.countEdges(x, "follows").await()).isZero();
    assertThat(store.getEdge(x, "follows", y).otherwiseEmpty().await()).isNull();
  }

  @Test
  void anArchiveOrRestoreFromADeletedNode_isNotFound_andChangesNothing() throws Exception {
    GraphStore store = fixture.store;
    NodeId x = store.createNode("user", json("{\"name\": \"x\"}"), null).await().id();
    NodeId y = store.createNode("user", json("{\"name\": \"y\"}"), null).await().id();
    store.addEdge(x, "follows", y, 1L, null, InverseWait.APPLIED).await();
    store.deleteNode(x, GraphStore.Cascade.NONE).await();

    Future<EdgeResult> archived = store.archiveEdge(x, "follows", y, InverseWait.APPLIED);

    assertThat(archived.otherwiseEmpty().await()).isNull();
    assertThat(((GraphException) archived.cause()).code())
        .isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(store.getEdge(x, "follows", y).await().state()).isEqualTo(EdgeState.ACTIVE);
    assertThat(store.getEdge(y, "followed_by", x).await().state()).isEqualTo(EdgeState.ACTIVE);
  }

  @Test
  void aCascadeRacingAddsToTheNode_leavesItWithNoActiveEdgesInOrOut_onceDrained() throws Exception {
    GraphStore store = fixture.store;
    NodeId pin = store.createNode("pin", json("{\"link\": \"doomed\"}"), null).await().id();
    List<NodeId> boards = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      boards.add(store.createNode("board", json("{\"title\": \"b\"}"), null).await().id());
    }
    for (NodeId board : boards.subList(0, 8)) {
      store.addEdge(board, "board_has_pins", pin, null, null).await();
    }

    List<Future<?>> racing = new ArrayList<>();
    for (NodeId board : boards.subList(8, 16)) {
      racing.add(store.addEdge(board, "board_has_pins", pin, null, null));
    }
    racing.add(store.deleteNode(pin, GraphStore.Cascade.EDGES));
    for (NodeId board : boards.subList(16, 20)) {
      racing.add(store.addEdge(board, "board_has_pins", pin, null, null));
    }
    Future.join(new ArrayList<>(racing)).await();
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    // Adds after the deletion has drained: acknowledged, then undone by their inverses.
    for (NodeId board : boards.subList(20, 24)) {
      store.addEdge(board, "board_has_pins", pin, null, null).await();
    }
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));

    assertThat(activeEdgesTouching(pin, "board_has_pins")).as("edges to the deleted pin").isEmpty();
    assertThat(activeEdgesTouching(pin, "pin_owned_by_board")).as("edges from the deleted pin").isEmpty();
    assertThat(store.countEdges(pin, "pin_owned_by_board").await()).isZero();
    for (NodeId board : boards) {
      assertThat(store.countEdges(board, "board_has_pins").await()).as("board " + board).isZero();
    }
  }

  @Test
  void archivingANodesEdges_archivesBothCopiesOfEach_andRestoringBringsEveryOneBackWhole() throws Exception {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"suspended\"}"), null).await().id();
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      pins.add(store.createNode("pin", json("{\"link\": \"p\"}"), null).await().id());
      store.addEdge(board, "board_has_pins", pins.get(i), 100L + i, json("{\"note\": \"n" + i + "\"}")).await();
    }
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    List<Edge> before = store.getEdges(board, "board_has_pins", EdgeQuery.firstPage(50)).await().edges();

    store.archiveEdgesOf(board).await();
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));

    assertThat(store.countEdges(board, "board_has_pins").await()).isZero();
    assertThat(store.getEdges(board, "board_has_pins", EdgeQuery.firstPage(50)).await().edges()).isEmpty();
    for (NodeId pin : pins) {
      assertThat(store.countEdges(pin, "pin_owned_by_board").await()).as("inverse of " + pin).isZero();
      assertThat(store.getEdge(pin, "pin_owned_by_board", board).await().state()).isEqualTo(EdgeState.ARCHIVED);
    }
    List<Edge> archived = store.getEdges(board, "board_has_pins", EdgeQuery.firstPage(50).in(EdgeState.ARCHIVED))
        .await().edges();
    assertThat(archived).extracting(Edge::to).containsExactlyElementsOf(before.stream().map(Edge::to).toList());
    assertThat(statesTouching(board)).containsOnly(EdgeRow.ARCHIVED).hasSize(24);

    store.restoreEdgesOf(board).await();
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));

    List<Edge> after = store.getEdges(board, "board_has_pins", EdgeQuery.firstPage(50)).await().edges();
    assertThat(after).extracting(Edge::to).containsExactlyElementsOf(before.stream().map(Edge::to).toList());
    for (int i = 0; i < before.size(); i++) {
      assertThat(after.get(i).sequence()).isEqualTo(before.get(i).sequence());
      assertThat(after.get(i).data()).isEqualTo(before.get(i).data());
    }
    for (NodeId pin : pins) {
      assertThat(store.countEdges(pin, "pin_owned_by_board").await()).as("inverse of " + pin).isEqualTo(1);
    }
    assertThat(statesTouching(board)).containsOnly(EdgeRow.ACTIVE).hasSize(24);
  }

  @Test
  void anArchiveAndARestoreOfOneNodeDrainedTogether_endAsTheNewerAsks_andStop() throws Exception {
    NodeId board = boardWithPins("archived, then restored, in one batch", 30);

    // Both cascades wait in the outbox, then come due together: one batch holds them.
    tables.appendCascadeEntry(board.shard(), OutboxOp.Kind.CASCADE_ARCHIVE, board, ShardTables.HELD_BACK_US);
    tables.appendCascadeEntry(board.shard(), OutboxOp.Kind.CASCADE_RESTORE, board, ShardTables.HELD_BACK_US);
    tables.execute(board.shard(), "UPDATE " + tables.outboxTable().on(board.shard()) + " SET next_attempt_us = 0"
        + " WHERE next_attempt_us = " + ShardTables.HELD_BACK_US);
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));

    assertThat(fixture.store.countEdges(board, "board_has_pins").await()).as("restored, as the newer asked").isEqualTo(30);
    assertThat(statesTouching(board)).containsOnly(EdgeRow.ACTIVE).hasSize(60);
  }

  @Test
  void anOlderCascadeRetried_isRetiredByANewerOne_neverUndoingIt() throws Exception {
    NodeId board = boardWithPins("an archive due again in an hour", 5);
    // An archive that failed and waits for its retry, an hour from now...
    tables.appendCascadeEntry(board.shard(), OutboxOp.Kind.CASCADE_ARCHIVE, board,
        (System.currentTimeMillis() + Duration.ofHours(1).toMillis()) * 1000);

    // ...and the restore a client asked for after it.
    fixture.store.restoreEdgesOf(board).await();

    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    assertThat(fixture.store.countEdges(board, "board_has_pins").await()).isEqualTo(5);
    assertThat(statesTouching(board)).containsOnly(EdgeRow.ACTIVE).hasSize(10);
  }

  /** A board with {@code pins} active edges to pins, their inverses written. */
  private static NodeId boardWithPins(String title, int pins) throws Exception {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"" + title + "\"}"), null).await().id();
    for (int i = 0; i < pins; i++) {
      NodeId pin = store.createNode("pin", json("{\"link\": \"p\"}"), null).await().id();
      store.addEdge(board, "board_has_pins", pin, (long) i, null, InverseWait.APPLIED).await();
    }
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    return board;
  }

  @Test
  void aCascadingDeletion_removesArchivedEdgesToo_bothCopies() throws Exception {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"gone\"}"), null).await().id();
    for (int i = 0; i < 6; i++) {
      NodeId pin = store.createNode("pin", json("{\"link\": \"p\"}"), null).await().id();
      store.addEdge(board, "board_has_pins", pin, null, null).await();
      if (i % 2 == 0) {
        store.archiveEdge(board, "board_has_pins", pin, io.quiver.store.InverseWait.ASYNC).await();
      }
    }
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));

    store.deleteNode(board, GraphStore.Cascade.EDGES).await();
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));

    assertThat(statesTouching(board)).as("every copy of every edge, archived or not, is a tombstone")
        .containsOnly(EdgeRow.DELETED).hasSize(12);
  }

  /** The state of every stored copy of an edge from or to {@code node}, both directions. */
  private static List<Integer> statesTouching(NodeId node) throws Exception {
    List<Integer> states = new ArrayList<>();
    for (String edgeType : List.of("board_has_pins", "pin_owned_by_board")) {
      for (Map.Entry<ShardTables.Key, EdgeRow> row : tables.edges(edgeType).entrySet()) {
        if (row.getKey().from() == node.value() || row.getKey().to() == node.value()) {
          states.add(row.getValue().state());
        }
      }
    }
    return states;
  }

  private static List<ShardTables.Key> activeEdgesTouching(NodeId node, String edgeType) throws Exception {
    List<ShardTables.Key> touching = new ArrayList<>();
    for (Map.Entry<ShardTables.Key, EdgeRow> row : tables.edges(edgeType).entrySet()) {
      boolean touches = row.getKey().from() == node.value() || row.getKey().to() == node.value();
      if (touches && row.getValue().active()) {
        touching.add(row.getKey());
      }
    }
    return touching;
  }
}
