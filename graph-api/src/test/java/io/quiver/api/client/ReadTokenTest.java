package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.TwoServers;
import io.quiver.client.Edge;
import io.quiver.client.EdgeQuery;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import io.vertx.core.http.HttpMethod;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Read-your-writes across servers and inverse lists: a session writes through one server and reads
 * through another, whose cache already holds the old state — the inverse list, its count and the
 * node as they were — and sees every write at once; a token whose inverse cannot be applied is a
 * 503, never an older answer; a token that is not one is a 400.
 */
class ReadTokenTest {
  private static final int PAIRS = 100;
  @RegisterExtension
  static final TwoServers servers = new TwoServers();

  @Test
  void aSessionWritingThroughOneServer_readsThroughAnother_itsEdgesInverseCountAndNodeAtOnce() {
    long onH1 = Long.parseLong(servers.first.userOn("h1", "writer"));
    long onH2 = Long.parseLong(servers.first.userOn("h2", "reader"));
    int staleWithout = 0;
    for (int i = 0; i < PAIRS; i++) {
      Node board = servers.one.createNode("board", Map.of("title", "b" + i), onH1);
      Node pin = servers.one.createNode("pin", Map.of("link", "l" + i), onH2);
      // The second server caches the pin's inverse list, its count and the board as they are now.
      assertThat(servers.two.getEdges(pin.id(), "pin_owned_by_board", EdgeQuery.newestFirst()).edges()).isEmpty();
      assertThat(servers.two.countEdges(pin.id(), "pin_owned_by_board")).isZero();
      assertThat(servers.two.getNode(board.id()).version()).isEqualTo(1);

      QuiverClient writer = servers.one.session();
      writer.addEdge(board.id(), "board_has_pins", pin.id());
      writer.updateNode(board.id(), Map.of("title", "changed"));
      QuiverClient reader = servers.two.session(writer.token());

      if (servers.two.countEdges(pin.id(), "pin_owned_by_board") == 0) {
        staleWithout++;
      }
      assertThat(reader.getEdges(pin.id(), "pin_owned_by_board", EdgeQuery.newestFirst()).edges())
          .as("the inverse copy, read on another server").extracting(Edge::to).containsExactly(board.id());
      assertThat(reader.countEdges(pin.id(), "pin_owned_by_board")).as("its count").isEqualTo(1);
      assertThat(reader.getNode(board.id()).version()).as("the node, past the other server's cache").isEqualTo(2);
      assertThat(reader.token()).as("a read answers the token it carried").isEqualTo(writer.token());
    }
    System.out.printf("read tokens: %d writes read through another server with their tokens, all seen; without"
        + " one, the inverse count read right after the write was stale %d times%n", PAIRS, staleWithout);
  }

  @Test
  void everyWrite_answersAToken_aSessionMergesThem_andABadOneIsA400() {
    long onH1 = Long.parseLong(servers.first.userOn("h1", "merger"));
    Node board = servers.one.createNode("board", Map.of("title", "m"), onH1);
    QuiverClient session = servers.one.session();
    session.addEdge(board.id(), "board_has_pins", servers.one.createNode("pin", Map.of("link", "a")).id());
    String afterOne = session.token();
    session.addEdge(board.id(), "board_has_pins", servers.one.createNode("pin", Map.of("link", "b")).id());

    assertThat(afterOne).isNotNull();
    assertThat(session.token()).as("both writes' entries").isNotEqualTo(afterOne)
        .hasSizeGreaterThan(afterOne.length());
    Answer written = servers.first.call(HttpMethod.POST, "/v1/nodes/board", "{\"data\": {\"title\": \"t\"}}");
    assertThat(written.headers().get("Quiver-Token")).as("a node write's token").isNotBlank();
    Answer refused = servers.first.call(HttpMethod.GET, "/v1/nodes/" + board.id(), null, Map.of("Quiver-Token", "nope"));
    assertThat(refused.status()).isEqualTo(400);
    assertThat(refused.body().path("error").path("message").asText()).contains("not a read token");
    Answer refusedWrite = servers.first.call(HttpMethod.PATCH, "/v1/nodes/" + board.id(), "{\"data\": {\"title\": \"x\"}}",
        Map.of("Quiver-Token", "nope"));
    assertThat(refusedWrite.status()).isEqualTo(400);
    assertThat(servers.one.getNode(board.id()).version()).as("a refused write writes nothing").isEqualTo(1);
  }

  @Test
  void aTokenWhoseInverseCannotBeApplied_isA503_neverAnOlderAnswer() throws Exception {
    long onH1 = Long.parseLong(servers.first.userOn("h1", "stuck"));
    long onH2 = Long.parseLong(servers.first.userOn("h2", "down"));
    Node board = servers.one.createNode("board", Map.of("title", "s"), onH1);
    Node pin = servers.one.createNode("pin", Map.of("link", "s"), onH2);
    servers.first.backend.hosts().stop(1);
    try {
      QuiverClient writer = servers.one.session();
      writer.addEdge(board.id(), "board_has_pins", pin.id());
      long started = System.nanoTime();
      QuiverException refused = catchThrowableOfType(() -> servers.two.session(writer.token()).getNode(board.id()),
          QuiverException.class);
      long tookMs = (System.nanoTime() - started) / 1_000_000;

      assertThat(refused.status()).isEqualTo(503);
      assertThat(refused.getMessage()).contains("inverse copy").contains("could not be applied");
      assertThat(tookMs).as("refused at the bound, not the request's timeout").isBetween(900L, 5_000L);
    } finally {
      servers.first.backend.hosts().start(1);
    }
  }
}
