package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.core.testing.Await;
import io.quiver.api.testing.ApiFixture;
import io.quiver.client.Edge;
import io.quiver.client.EdgeBatch;
import io.quiver.client.EdgeKey;
import io.quiver.client.EdgeList;
import io.quiver.client.EdgePage;
import io.quiver.client.EdgeQuery;
import io.quiver.client.Node;
import io.quiver.client.NodeBatch;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import io.quiver.client.TargetPage;
import io.quiver.store.testing.GraphInvariants;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletionException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Every call of the API through the Java client, against a real server. */
@ExtendWith(GraphInvariants.class)
class QuiverClientTest {
  private static ApiFixture server;
  private static QuiverClient quiver;

  @BeforeAll
  static void start() throws Exception {
    server = new ApiFixture();
    quiver = QuiverClient.create(URI.create("http://localhost:" + server.port()));
  }

  @AfterAll
  static void stop() {
    quiver.close();
    server.close();
  }

  private static QuiverException failure(Runnable call) {
    try {
      call.run();
    } catch (QuiverException e) {
      return e;
    }
    throw new AssertionError("the call should have failed");
  }

  @Test
  void getNodeBy_findsANodeByAUniqueValue_encodingItAsAPathSegment() {
    String handle = "a b/c?" + System.nanoTime();
    Node account = quiver.createNode("account", java.util.Map.of("handle", handle));
    assertThat(quiver.getNodeBy("account", "handle", handle).id()).isEqualTo(account.id());
    QuiverException taken = failure(() -> quiver.createNode("account", java.util.Map.of("handle", handle)));
    assertThat(taken.status()).isEqualTo(409);
    assertThat(taken.code()).isEqualTo("unique_violation");
    assertThat(failure(() -> quiver.getNodeBy("account", "handle", "nobody" + System.nanoTime())).code())
        .isEqualTo("not_found");
  }

  @Test
  void nodes_createGetUpdateReplaceDelete() {
    Node user = quiver.createNode("user", Map.of("name", "Ada"));
    Node board = quiver.createNode("board", Map.of("title", "t", "owner", Long.toString(user.id())), user.id());

    assertThat(board.shard()).isEqualTo(user.shard());
    assertThat(quiver.getNode(board.id())).isEqualTo(board);
    assertThat(board.data().get("private").asBoolean()).as("default").isFalse();

    Node updated = quiver.updateNode(board.id(), Map.of("title", "u"), 1);
    assertThat(updated.version()).isEqualTo(2);
    assertThat(failure(() -> quiver.updateNode(board.id(), Map.of("title", "v"), 1)).code()).isEqualTo("version_conflict");
    Node replaced = quiver.replaceNode(board.id(), Map.of("title", "r"), QuiverClient.ANY_VERSION);
    assertThat(replaced.data().has("owner")).isFalse();

    quiver.deleteNode(board.id());
    QuiverException gone = failure(() -> quiver.getNode(board.id()));
    assertThat(gone.code()).isEqualTo("not_found");
    assertThat(gone.status()).isEqualTo(404);
  }

  @Test
  void aStaleTolerantClient_readsAsAnyClientWhereNoReplicaIsListed_andWritesUnchanged() {
    QuiverClient tolerant = quiver.staleTolerant();
    Node board = tolerant.createNode("board", Map.of("title", "t"));
    Node pin = tolerant.createNode("pin", Map.of("link", "l"), board.id());
    tolerant.addEdge(board.id(), "board_has_pins", pin.id());

    assertThat(tolerant.getNode(board.id())).isEqualTo(quiver.getNode(board.id()));
    assertThat(tolerant.countEdges(board.id(), "board_has_pins")).isEqualTo(1);
    assertThat(tolerant.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().limit(5)).edges()).hasSize(1);
    assertThat(tolerant.staleTolerant()).isSameAs(tolerant);
  }

  @Test
  void getNodes_answersInRequestOrderWithMissing() {
    Node a = quiver.createNode("user", Map.of("name", "a"));
    Node b = quiver.createNode("pin", Map.of("link", "b"));
    long absent = a.id() + 1_000_000;

    NodeBatch batch = quiver.getNodes(List.of(b.id(), absent, a.id()));

    assertThat(batch.nodes()).extracting(Node::id).containsExactly(b.id(), a.id());
    assertThat(batch.missing()).containsExactly(absent);
  }

  @Test
  void edges_addGetRemoveCountAndPage() {
    Node board = quiver.createNode("board", Map.of("title", "e"));
    List<Node> pins = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pins.add(quiver.createNode("pin", Map.of("link", "p" + i), board.id()));
      quiver.addEdge(board.id(), "board_has_pins", pins.get(i).id(), (long) (10 + i), Map.of("note", "n" + i));
    }

    assertThat(quiver.getEdge(board.id(), "board_has_pins", pins.get(2).id()).data().get("note").asText()).isEqualTo("n2");
    assertThat(quiver.countEdges(board.id(), "board_has_pins")).isEqualTo(5);
    EdgePage newest = quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().limit(2));
    assertThat(newest.edges()).extracting(Edge::sequence).containsExactly(14L, 13L);
    EdgePage next = quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().limit(2).after(newest.next()));
    assertThat(next.edges()).extracting(Edge::sequence).containsExactly(12L, 11L);
    assertThat(quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.oldestFirst().sequenceBetween(11L, 13L).offset(1))
        .edges()).extracting(Edge::sequence).containsExactly(12L, 13L);
    EdgePage hydrated = quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().hydrate(true));
    assertThat(hydrated.edges().get(0).node().data().get("link").asText()).isEqualTo("p4");

    assertThat(quiver.getEdgesTo(board.id(), "board_has_pins", List.of(pins.get(1).id(), pins.get(3).id())))
        .extracting(Edge::sequence).containsExactly(13L, 11L);

    assertThat(quiver.archiveEdge(board.id(), "board_has_pins", pins.get(0).id()).archived()).isTrue();
    assertThat(quiver.getEdge(board.id(), "board_has_pins", pins.get(0).id()).archived()).isTrue();
    assertThat(quiver.countEdges(board.id(), "board_has_pins")).isEqualTo(4);
    assertThat(quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().archived(true)).edges())
        .extracting(Edge::to).containsExactly(pins.get(0).id());
    assertThat(quiver.getEdgesTo(board.id(), "board_has_pins", List.of(pins.get(0).id(), pins.get(1).id()), "all"))
        .extracting(Edge::archived).containsExactly(false, true);
    Node unlinked = quiver.createNode("pin", Map.of("link", "none"), board.id());
    EdgeKey none = new EdgeKey(board.id(), "board_has_pins", unlinked.id());
    EdgeBatch batch = quiver.getEdgesBatch(List.of(none, new EdgeKey(board.id(), "board_has_pins", pins.get(0).id()),
        new EdgeKey(board.id(), "board_has_pins", pins.get(2).id())));
    assertThat(batch.edges()).extracting(Edge::to).containsExactly(pins.get(0).id(), pins.get(2).id());
    assertThat(batch.edges()).extracting(Edge::archived).containsExactly(true, false);
    assertThat(batch.missing()).containsExactly(none);
    assertThat(quiver.restoreEdge(board.id(), "board_has_pins", pins.get(0).id()).archived()).isFalse();

    quiver.removeEdge(board.id(), "board_has_pins", pins.get(4).id());
    assertThat(quiver.countEdges(board.id(), "board_has_pins")).isEqualTo(4);
    assertThat(failure(() -> quiver.getEdge(board.id(), "board_has_pins", pins.get(4).id())).code()).isEqualTo("not_found");
  }

  @Test
  void aNodesEdges_areArchivedAndRestoredInBulk() throws Exception {
    Node board = quiver.createNode("board", Map.of("title", "bulk"));
    Node pin = quiver.createNode("pin", Map.of("link", "b"), board.id());
    quiver.addEdge(board.id(), "board_has_pins", pin.id());

    quiver.archiveEdgesOf(board.id());
    Await.until("archived", java.time.Duration.ofSeconds(10),
        () -> quiver.countEdges(board.id(), "board_has_pins") == 0);
    quiver.restoreEdgesOf(board.id());
    Await.until("restored", java.time.Duration.ofSeconds(10),
        () -> quiver.countEdges(board.id(), "board_has_pins") == 1);
  }

  @Test
  void setOperationsOverEdgeLists_pageAndCount() {
    Node one = quiver.createNode("user", Map.of("name", "one"));
    Node two = quiver.createNode("user", Map.of("name", "two"));
    List<Long> both = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      Node target = quiver.createNode("user", Map.of("name", "t" + i));
      quiver.addEdge(one.id(), "follows", target.id());
      if (i % 2 == 0) {
        quiver.addEdge(two.id(), "follows", target.id());
        both.add(target.id());
      }
    }
    List<EdgeList> lists = List.of(new EdgeList(one.id(), "follows"), new EdgeList(two.id(), "follows"));

    TargetPage first = quiver.combineLists("intersection", lists, null, 1);
    TargetPage second = quiver.combineLists("intersection", lists, first.next(), 1);
    assertThat(List.of(first.targets().get(0), second.targets().get(0))).containsExactlyElementsOf(
        both.stream().sorted().toList());
    assertThat(quiver.countCombined("difference", lists)).isEqualTo(2);
    assertThat(quiver.countCombined("union", lists)).isEqualTo(4);
  }

  @Test
  void errors_carryTheApiCode_andTheAsyncFormFailsWithTheSameException() {
    QuiverException violation = failure(() -> quiver.createNode("pin", Map.of("details", 3)));
    assertThat(violation.code()).isEqualTo("schema_violation");
    assertThat(violation.status()).isEqualTo(422);
    assertThat(violation.details().get("fields").has("data.link")).isTrue();
    assertThat(failure(() -> quiver.createNode("spaceship", Map.of())).code()).isEqualTo("not_found");
    Node user = quiver.createNode("user", Map.of("name", "x"));
    assertThat(failure(() -> quiver.addEdge(user.id(), "board_has_pins", user.id())).code()).isEqualTo("invalid_request");

    assertThatThrownBy(() -> quiver.getNodeAsync(user.id() + 999_999).join())
        .isInstanceOf(CompletionException.class).hasCauseInstanceOf(QuiverException.class);
    assertThat(quiver.getNodeAsync(user.id()).join()).isEqualTo(user);
  }

  @Test
  void anUnreachableServer_isUnavailable_andRetryable() {
    try (QuiverClient nowhere = QuiverClient.create(URI.create("http://127.0.0.1:9"), Duration.ofSeconds(2))) {
      QuiverException down = failure(() -> nowhere.getNode(1));
      assertThat(down.code()).isEqualTo("unavailable");
      assertThat(down.retryable()).isTrue();
    }
  }

  @Test
  void metrics_showRequestHistogramsPerOperationAndStatus_afterTraffic() {
    Node user = quiver.createNode("user", Map.of("name", "m"));
    quiver.getNode(user.id());
    failure(() -> quiver.getNode(user.id() + 999_999));

    String metrics = server.call(io.vertx.core.http.HttpMethod.GET, "/metrics").text();

    assertThat(metrics).contains("quiver_requests_seconds_bucket{operation=\"getNode\",status=\"200\"");
    assertThat(metrics).contains("quiver_requests_seconds_count{operation=\"getNode\",status=\"404\"}");
    assertThat(metrics).contains("quiver_requests_seconds_count{operation=\"createNode\",status=\"201\"}");
    assertThat(metrics).contains("quiver_pool_connections{host=\"h1\"}").contains("quiver_node_read_queries_total");
    assertThat(metrics).contains("quiver_host_replicas{host=\"h1\"} 0.0").contains("quiver_host_degraded{host=\"h1\"} 0.0");
    assertThat(metrics).contains("quiver_cache_hit_ratio{cache=\"nodes\"}").contains("quiver_cache_weight_bytes{cache=\"edge_windows\"}")
        .contains("quiver_cache_entries{cache=\"nodes\"}")
        .contains("quiver_cache_hits_total{cache=\"nodes\"}").contains("quiver_cache_invalidations_sent_total");
  }

  @Test
  void deleteNode_withCascade_removesItsEdgesAndTheirInverses() throws Exception {
    Node board = quiver.createNode("board", Map.of("title", "c"));
    List<Node> pins = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pins.add(quiver.createNode("pin", Map.of("link", "c" + i)));
      quiver.addEdge(board.id(), "board_has_pins", pins.get(i).id());
    }

    quiver.deleteNode(board.id(), true);

    Await.until("the cascade completes", Duration.ofSeconds(20),
        () -> quiver.countEdges(board.id(), "board_has_pins") == 0
            && pins.stream().allMatch(pin -> quiver.countEdges(pin.id(), "pin_owned_by_board") == 0));
    assertThat(failure(() -> quiver.getNode(board.id())).code()).isEqualTo("not_found");
  }
}
