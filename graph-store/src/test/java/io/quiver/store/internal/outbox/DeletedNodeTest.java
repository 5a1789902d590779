package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.GraphStore;
import io.quiver.store.NodeId;
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
 * The delete rule: once a cascading deletion has drained, the deleted node has no active edges,
 * in or out — also when edges to it are added while it is being deleted, or after. An edge added
 * to a node that is gone is acknowledged (its forward copy commits on the other node's shard),
 * and removed again when its inverse finds the node missing: the inverse writer never creates
 * edges from a node that does not exist.
 */
@ExtendWith(GraphInvariants.class)
class DeletedNodeTest {
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

  private static List<ShardTables.Key> activeEdgesTouching(NodeId node, String edgeType) throws Exception {
    List<ShardTables.Key> touching = new ArrayList<>();
    for (Map.Entry<ShardTables.Key, io.quiver.store.internal.table.EdgeRow> row : tables.edges(edgeType).entrySet()) {
      boolean touches = row.getKey().from() == node.value() || row.getKey().to() == node.value();
      if (touches && row.getValue().active()) {
        touching.add(row.getKey());
      }
    }
    return touching;
  }
}
