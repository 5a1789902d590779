package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiFixture;
import io.quiver.cache.CacheSettings;
import io.quiver.client.EdgePage;
import io.quiver.client.EdgeQuery;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The application-level join costs one node query per shard, counted on an uncached server. */
@ExtendWith(GraphInvariants.class)
class HydrateQueriesTest {
  private static ApiFixture server;
  private static QuiverClient quiver;

  @BeforeAll
  static void start() throws Exception {
    server = new ApiFixture(TestBackend.get().poolSettings(), Duration.ofSeconds(10), CacheSettings.defaults().disabled());
    quiver = QuiverClient.create(URI.create("http://localhost:" + server.port()));
  }

  @AfterAll
  static void stop() {
    quiver.close();
    server.close();
  }

  @Test
  void hydratedPage_withTargetsOnKShards_issuesExactlyKNodeQueries() {
    Node board = quiver.createNode("board", Map.of("title", "k"));
    Set<Integer> shards = new HashSet<>();
    List<Node> anchors = new ArrayList<>();
    while (anchors.size() < 3) {
      Node user = quiver.createNode("user", Map.of("name", "anchor"));
      if (shards.add(user.shard())) {
        anchors.add(user);
      }
    }
    for (Node anchor : anchors) {
      for (int i = 0; i < 4; i++) {
        Node pin = quiver.createNode("pin", Map.of("link", "k"), anchor.id());
        quiver.addEdge(board.id(), "board_has_pins", pin.id());
      }
    }

    long before = server.server.backend().telemetry().nodeReadQueries();
    EdgePage page = quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().limit(20).hydrate(true));
    long queries = server.server.backend().telemetry().nodeReadQueries() - before;

    assertThat(page.edges()).hasSize(12).allSatisfy(edge -> assertThat(edge.node()).isNotNull());
    assertThat(queries).as("one node query per shard of the page's targets").isEqualTo(3);
  }

}
