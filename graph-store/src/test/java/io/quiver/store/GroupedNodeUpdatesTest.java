package io.quiver.store;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.testing.StoreFixture;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Updates of nodes whose type has no unique field run in their host's next transaction of client
 * writes ({@code GroupCommit}), shared with the edge writes and updates waiting for it: on real
 * MariaDB hosts, they share transactions, never lose an update of one node to another, and a
 * refused one leaves the others of its group to commit.
 */
class GroupedNodeUpdatesTest {
  private static StoreFixture fixture;
  private static GraphStore store;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
    store = fixture.store;
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  private static Node user(String name) {
    return store.createNode("user", json("{\"name\": \"" + name + "\"}"), null).await();
  }

  @Test
  void updatesOfManyNodesAndEdgeWritesFromThemSentAtOnce_shareTransactions_andEachCommits() {
    List<Node> nodes = IntStream.range(0, 24).mapToObj(i -> user("n" + i)).toList();
    Node target = user("target");
    long writes = fixture.backend.telemetry().clientWrites();
    long transactions = fixture.backend.telemetry().clientWriteTransactions();

    List<Future<Node>> updates = new ArrayList<>();
    List<Future<EdgeResult>> adds = new ArrayList<>();
    for (Node node : nodes) {
      updates.add(store.updateNode(node.id(), json("{\"bio\": \"b-" + node.id() + "\"}"), NodeCondition.NONE));
      adds.add(store.addEdge(node.id(), "follows", target.id(), null, null, EdgeState.ACTIVE, InverseWait.ASYNC));
    }
    Future.all(updates).await();
    Future.all(adds).await();

    assertThat(fixture.backend.telemetry().clientWrites() - writes).isEqualTo(48);
    assertThat(fixture.backend.telemetry().clientWriteTransactions() - transactions)
        .as("the updates and adds sent at once shared transactions").isLessThan(48);
    for (int i = 0; i < nodes.size(); i++) {
      Node node = nodes.get(i);
      assertThat(updates.get(i).result().version()).isEqualTo(2);
      Node stored = store.getNode(node.id()).await();
      assertThat(stored.version()).isEqualTo(2);
      assertThat(stored.data().path("bio").asText()).isEqualTo("b-" + node.id());
      assertThat(stored.data().path("name").asText()).as("a patch keeps the fields it does not name")
          .isEqualTo("n" + i);
      assertThat(store.getEdge(node.id(), "follows", target.id()).await()).isNotNull();
    }
  }

  @Test
  void updatesOfOneNodeSentAtOnce_neverShareATransaction_soEachSeesTheOneBeforeAndNoneIsLost() {
    Node node = user("busy");
    List<Future<Node>> updates = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      updates.add(store.updateNode(node.id(), json("{\"f" + i + "\": " + i + "}"), NodeCondition.NONE));
    }
    Future.all(updates).await();

    assertThat(updates.stream().map(update -> update.result().version()))
        .as("each update at a version of its own").containsExactlyInAnyOrderElementsOf(
            IntStream.rangeClosed(2, 21).mapToObj(Long::valueOf).toList());
    Node stored = store.getNode(node.id()).await();
    assertThat(stored.version()).isEqualTo(21);
    for (int i = 0; i < 20; i++) {
      assertThat(stored.data().path("f" + i).asInt(-1)).as("update %d kept", i).isEqualTo(i);
    }
  }

  @Test
  void anUpdateRefusedInAGroup_isAnsweredItsRefusalAndWritesNothing_andTheOthersCommit() {
    List<Node> nodes = IntStream.range(0, 12).mapToObj(i -> user("g" + i)).toList();
    Node gone = user("gone");
    store.deleteNode(gone.id()).await();

    List<Future<Node>> updates = new ArrayList<>();
    for (int i = 0; i < nodes.size(); i++) {
      NodeCondition condition = i == 5 ? NodeCondition.atVersion(99) : NodeCondition.NONE;
      updates.add(store.updateNode(nodes.get(i).id(), json("{\"bio\": \"x\"}"), condition));
    }
    Future<Node> missing = store.updateNode(gone.id(), json("{\"bio\": \"x\"}"), NodeCondition.NONE);
    Future.join(updates).otherwiseEmpty().await();
    missing.otherwiseEmpty().await();

    for (int i = 0; i < nodes.size(); i++) {
      Node stored = store.getNode(nodes.get(i).id()).await();
      if (i == 5) {
        assertThat(updates.get(i).failed()).isTrue();
        assertThat(((GraphException) updates.get(i).cause()).code()).isEqualTo(GraphException.Code.VERSION_CONFLICT);
        assertThat(stored.version()).as("the refused update wrote nothing").isEqualTo(1);
        assertThat(stored.data().path("bio").asText()).isEmpty();
      } else {
        assertThat(updates.get(i).succeeded()).as("update %d", i).isTrue();
        assertThat(stored.version()).isEqualTo(2);
        assertThat(stored.data().path("bio").asText()).isEqualTo("x");
      }
    }
    assertThat(missing.failed()).isTrue();
    assertThat(((GraphException) missing.cause()).code()).isEqualTo(GraphException.Code.NOT_FOUND);
  }
}
