package io.quiver.api.outbox;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Inverse edges as a product team sees them over HTTP. */
@ExtendWith(GraphInvariants.class)
class InverseApiTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  private static String create(String type, String data) {
    return api.call(POST, "/v1/nodes/" + type, "{\"data\": " + data + "}").id();
  }

  @Test
  void addEdge_waitingForTheInverse_isReadableThroughTheInverseAtOnce() {
    String board = create("board", "{\"title\": \"t\"}");
    String pin = create("pin", "{\"link\": \"l\"}");

    Answer added = api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "?waitForInverse=true");
    Answer inverse = api.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/" + board);
    Answer removed = api.call(io.vertx.core.http.HttpMethod.DELETE,
        "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "?waitForInverse=true");

    assertThat(added.headers().get("Quiver-Inverse")).isEqualTo("applied");
    assertThat(inverse.status()).isEqualTo(200);
    assertThat(inverse.body().get("sequence").asLong()).isEqualTo(added.body().get("sequence").asLong());
    assertThat(removed.status()).isEqualTo(204);
    assertThat(removed.headers().get("Quiver-Inverse")).isEqualTo("applied");
    assertThat(api.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/" + board).status()).isEqualTo(404);
  }

  @Test
  void anArchivedEdge_leavesListsAndCountsOnBothCopies_andComesBackWholeOnRestore() {
    String board = create("board", "{\"title\": \"t\"}");
    String pin = create("pin", "{\"link\": \"l\"}");
    String other = create("pin", "{\"link\": \"o\"}");
    Answer added = api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "?waitForInverse=true",
        "{\"sequence\": 77, \"data\": {\"note\": \"kept\"}}");
    api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + other + "?waitForInverse=true");
    String forward = "/v1/nodes/" + board + "/edges/board_has_pins";
    String inverse = "/v1/nodes/" + pin + "/edges/pin_owned_by_board";

    Answer archived = api.call(POST, forward + "/" + pin + "/archive?waitForInverse=true");
    assertThat(archived.status()).as(archived.text()).isEqualTo(200);
    assertThat(archived.headers().get("Quiver-Edge")).isEqualTo("archived");
    assertThat(archived.headers().get("Quiver-Inverse")).isEqualTo("applied");
    assertThat(archived.body().get("state").asText()).isEqualTo("archived");
    assertThat(api.call(GET, forward).body().get("edges").findValuesAsText("to")).containsExactly(other);
    assertThat(api.call(GET, forward + "/count").body().get("count").asLong()).isEqualTo(1);
    assertThat(api.call(GET, inverse).body().get("edges")).isEmpty();
    assertThat(api.call(GET, inverse + "/count").body().get("count").asLong()).isZero();
    Answer stillRead = api.call(GET, inverse + "/" + board);
    assertThat(stillRead.status()).isEqualTo(200);
    assertThat(stillRead.body().get("state").asText()).isEqualTo("archived");
    assertThat(api.call(POST, forward + "/" + pin + "/archive").headers().get("Quiver-Edge")).isEqualTo("unchanged");

    Answer restored = api.call(POST, forward + "/" + pin + "/restore?waitForInverse=true");
    assertThat(restored.headers().get("Quiver-Edge")).isEqualTo("restored");
    assertThat(restored.body().has("state")).isFalse();
    assertThat(restored.body().get("sequence").asLong()).isEqualTo(77);
    assertThat(restored.body().get("data").get("note").asText()).isEqualTo("kept");
    assertThat(api.call(GET, forward + "/count").body().get("count").asLong()).isEqualTo(2);
    Answer back = api.call(GET, inverse);
    assertThat(back.body().get("edges").findValuesAsText("to")).containsExactly(board);
    assertThat(back.body().get("edges").get(0).get("sequence").asLong()).isEqualTo(added.body().get("sequence").asLong());
    assertThat(api.call(POST, "/v1/nodes/" + board + "/edges/board_has_pins/" + create("pin", "{\"link\": \"n\"}")
        + "/archive").status()).isEqualTo(404);
  }

  @Test
  void anEdgeAddedArchived_isHiddenOnBothCopies_andRestoresWhole() throws Exception {
    String board = create("board", "{\"title\": \"hidden\"}");
    String pin = create("pin", "{\"link\": \"h\"}");
    String forward = "/v1/nodes/" + board + "/edges/board_has_pins";

    Answer added = api.call(PUT, forward + "/" + pin + "?waitForInverse=true",
        "{\"sequence\": 5, \"data\": {\"note\": \"h\"}, \"state\": \"archived\"}");

    assertThat(added.status()).as(added.text()).isEqualTo(200);
    assertThat(added.body().get("state").asText()).isEqualTo("archived");
    assertThat(api.call(GET, forward + "/count").body().get("count").asLong()).isZero();
    assertThat(api.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/" + board).body().get("state").asText())
        .isEqualTo("archived");
    Answer restored = api.call(POST, forward + "/" + pin + "/restore?waitForInverse=true");
    assertThat(restored.body().get("sequence").asLong()).isEqualTo(5);
    assertThat(api.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/count").body().get("count").asLong())
        .isEqualTo(1);
    assertThat(api.call(PUT, forward + "/" + pin, "{\"state\": \"hidden\"}").status()).isEqualTo(400);
  }

  @Test
  void aNodesEdgesArchivedInBulk_areListedAsArchived_andRestoredInBulk() throws Exception {
    String board = create("board", "{\"title\": \"bulk\"}");
    List<String> pins = new java.util.ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pins.add(create("pin", "{\"link\": \"b\"}"));
      api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pins.get(i) + "?waitForInverse=true");
    }
    String forward = "/v1/nodes/" + board + "/edges/board_has_pins";

    Answer archiving = api.call(POST, "/v1/nodes/" + board + "/archive-edges");
    assertThat(archiving.status()).as(archiving.text()).isEqualTo(202);
    Await.until("every edge of the board archived, both copies", Duration.ofSeconds(10),
        () -> api.call(GET, forward + "/count").body().get("count").asLong() == 0
            && pins.stream().allMatch(pin -> api.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/count")
                .body().get("count").asLong() == 0));
    assertThat(api.call(GET, forward + "?state=archived").body().get("edges").findValuesAsText("to"))
        .containsExactlyInAnyOrderElementsOf(pins);
    assertThat(api.call(GET, forward + "?state=hidden").status()).isEqualTo(400);

    assertThat(api.call(POST, "/v1/nodes/" + board + "/restore-edges").status()).isEqualTo(202);
    Await.until("every edge of the board restored, both copies", Duration.ofSeconds(10),
        () -> api.call(GET, forward + "/count").body().get("count").asLong() == 5
            && pins.stream().allMatch(pin -> api.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/count")
                .body().get("count").asLong() == 1));
    assertThat(api.call(GET, forward + "?state=archived").body().get("edges")).isEmpty();
    String gone = create("board", "{\"title\": \"gone\"}");
    api.call(io.vertx.core.http.HttpMethod.DELETE, "/v1/nodes/" + gone);
    assertThat(api.call(POST, "/v1/nodes/" + gone + "/archive-edges").status()).isEqualTo(404);
  }

  @Test
  void edgeWrites_sayWhereTheirInverseStands() {
    String user = create("user", "{\"name\": \"me\"}");
    String other = create("user", "{\"name\": \"you\"}");

    assertThat(api.call(PUT, "/v1/nodes/" + user + "/edges/follows/" + other).headers().get("Quiver-Inverse"))
        .isEqualTo("pending");
    assertThat(api.call(PUT, "/v1/nodes/" + user + "/edges/friends/" + user).headers().get("Quiver-Inverse"))
        .as("a symmetric self-loop is its own inverse").isEqualTo("none");
  }

  @Test
  void repairEndpoint_needsTheAdminToken_streamsProgress_andEndsWithASummary() throws Exception {
    assertThat(api.call(POST, "/v1/admin/repair/follows").status()).isEqualTo(401);
    Map<String, String> admin = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
    assertThat(api.call(POST, "/v1/admin/repair/nope", null, admin).status()).isEqualTo(404);

    Answer repaired = api.call(POST, "/v1/admin/repair/follows", null, admin);

    assertThat(repaired.status()).isEqualTo(200);
    assertThat(repaired.headers().get("Content-Type")).isEqualTo("application/x-ndjson");
    List<String> lines = repaired.text().lines().toList();
    ObjectMapper mapper = new ObjectMapper();
    assertThat(lines).hasSizeGreaterThan(TestBackend.SHARDS);
    assertThat(mapper.readTree(lines.get(0)).get("progress").asText()).contains("shard");
    JsonNode summary = mapper.readTree(lines.get(lines.size() - 1)).get("summary");
    assertThat(summary.get("edgeType").asText()).isEqualTo("follows");
    assertThat(summary.get("scanned").asLong()).isNotNegative();
  }

  @Test
  void metrics_showOutboxDepthAndAgePerHost() throws Exception {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    String text;
    do {
      Answer scraped = api.call(GET, "/metrics");
      assertThat(scraped.status()).as("%s %s", scraped.headers(), scraped.text()).isEqualTo(200);
      text = scraped.text() == null ? "" : scraped.text();
      Thread.sleep(50);
    } while (!(text.contains("quiver_outbox_pending{host=\"h1\"}") && text.contains("quiver_outbox_pending{host=\"h2\"}"))
        && System.nanoTime() < deadline);

    assertThat(text).contains("quiver_outbox_pending{host=\"h1\"}").contains("quiver_outbox_pending{host=\"h2\"}");
    assertThat(text).contains("quiver_outbox_oldest_pending_age_seconds{host=\"h1\"}");
    assertThat(text).contains("quiver_outbox_parked{host=\"h2\"}");
    assertThat(text).contains("quiver_changes_lag_seconds{host=\"h1\"}");
  }
}
