package io.quiver.api.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.catchThrowableOfType;

import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.client.Edge;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import io.quiver.store.testing.GraphInvariants;
import io.vertx.core.http.HttpMethod;
import java.net.URI;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * TAO's write preconditions over HTTP and the Java client: an edge added only if absent
 * ({@code If-None-Match: *}), updated only at a sequence ({@code If-Match}), a node written only
 * if its data fields hold given values ({@code "if"}); each failure a 409 with the state as it is,
 * each malformed condition a 400, and neither writes anything.
 */
@ExtendWith(GraphInvariants.class)
class ConditionalWritesTest {
  private static ApiFixture api;
  private static QuiverClient quiver;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
    quiver = QuiverClient.create(URI.create("http://localhost:" + api.port()));
  }

  @AfterAll
  static void stop() {
    quiver.close();
    api.close();
  }

  private static String edgePath(Node from, Node to) {
    return "/v1/nodes/" + from.id() + "/edges/board_has_pins/" + to.id();
  }

  @Test
  void anEdgeAddedIfAbsent_isAddedOnce_thenAnsweredConflictWithTheEdgeAsItIs() {
    Node board = quiver.createNode("board", Map.of("title", "t"));
    Node pin = quiver.createNode("pin", Map.of("link", "l"));

    Edge added = quiver.addEdgeIfAbsent(board.id(), "board_has_pins", pin.id(), 3L, Map.of("note", "first"));
    Answer again = api.call(HttpMethod.PUT, edgePath(board, pin), "{\"sequence\": 9}", Map.of("If-None-Match", "*"));

    assertThat(added.sequence()).isEqualTo(3);
    assertThat(again.status()).isEqualTo(409);
    assertThat(again.body().path("error").path("code").asText()).isEqualTo("version_conflict");
    assertThat(again.body().path("error").path("details").path("current").path("sequence").asLong()).isEqualTo(3);
    assertThat(again.body().path("error").path("details").path("current").path("data").path("note").asText())
        .isEqualTo("first");
    assertThat(quiver.getEdge(board.id(), "board_has_pins", pin.id()).sequence()).as("nothing written").isEqualTo(3);
  }

  @Test
  void anEdgeUpdatedAtASequence_isUpdatedOnlyThere_andAMissingEdgeConflictsWithNull() {
    Node board = quiver.createNode("board", Map.of("title", "t"));
    Node pin = quiver.createNode("pin", Map.of("link", "l"));
    Node absent = quiver.createNode("pin", Map.of("link", "a"));
    quiver.addEdge(board.id(), "board_has_pins", pin.id(), 5L, null);

    QuiverException stale = catchThrowableOfType(
        () -> quiver.updateEdgeIfAt(board.id(), "board_has_pins", pin.id(), 4, 6L, null), QuiverException.class);
    Edge updated = quiver.updateEdgeIfAt(board.id(), "board_has_pins", pin.id(), 5, 6L, Map.of("note", "n"));
    Answer missing = api.call(HttpMethod.PUT, edgePath(board, absent), "{}", Map.of("If-Match", "*"));

    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.details().path("current").path("sequence").asLong()).isEqualTo(5);
    assertThat(updated.sequence()).isEqualTo(6);
    assertThat(missing.status()).isEqualTo(409);
    assertThat(missing.body().path("error").path("details").path("current").isNull()).isTrue();
    assertThat(api.call(HttpMethod.GET, edgePath(board, absent)).status()).as("nothing written").isEqualTo(404);
  }

  @Test
  void aNodeWrittenIfItsFieldsHold_isWritten_andOtherwiseConflictsWithItsDataAsItIs() {
    Node pin = quiver.createNode("pin", Map.of("link", "l", "details", "open"));

    Node closed = quiver.updateNodeIf(pin.id(), Map.of("details", "closed"), Map.of("details", "open"));
    QuiverException lost = catchThrowableOfType(
        () -> quiver.updateNodeIf(pin.id(), Map.of("details", "closed again"), Map.of("details", "open")),
        QuiverException.class);

    assertThat(closed.version()).isEqualTo(2);
    assertThat(lost.status()).isEqualTo(409);
    assertThat(lost.code()).isEqualTo("version_conflict");
    assertThat(lost.details().path("current").path("details").asText()).isEqualTo("closed");
    assertThat(lost.details().path("currentVersion").asLong()).isEqualTo(2);
    assertThat(quiver.getNode(pin.id()).version()).as("nothing written").isEqualTo(2);
  }

  @Test
  void aMalformedCondition_isA400_andWritesNothing() {
    Node board = quiver.createNode("board", Map.of("title", "t"));
    Node pin = quiver.createNode("pin", Map.of("link", "l"));
    String path = edgePath(board, pin);

    assertThat(api.call(HttpMethod.PUT, path, "{}", Map.of("If-None-Match", "\"3\"")).status()).isEqualTo(400);
    assertThat(api.call(HttpMethod.PUT, path, "{}", Map.of("If-None-Match", "*", "If-Match", "\"3\"")).status())
        .isEqualTo(400);
    assertThat(api.call(HttpMethod.PUT, path, "{}", Map.of("If-Match", "soon")).status()).isEqualTo(400);
    assertThat(api.call(HttpMethod.GET, path).status()).as("no edge written").isEqualTo(404);
    for (String body : new String[] {"{\"data\": {\"details\": \"x\"}, \"if\": []}",
        "{\"data\": {\"details\": \"x\"}, \"if\": {}}", "{\"data\": {\"details\": \"x\"}, \"if\": \"details\"}"}) {
      Answer refused = api.call(HttpMethod.PATCH, "/v1/nodes/" + pin.id(), body);
      assertThat(refused.status()).as(body).isEqualTo(400);
      assertThat(refused.body().path("error").path("message").asText()).as(body).contains("'if'");
    }
    assertThat(quiver.getNode(pin.id()).version()).as("no node written").isEqualTo(1);
  }
}
