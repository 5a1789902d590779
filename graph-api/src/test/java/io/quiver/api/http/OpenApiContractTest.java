package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.DELETE;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import io.vertx.openapi.contract.OpenAPIContract;
import io.vertx.openapi.validation.ResponseValidator;
import io.vertx.openapi.validation.ValidatableResponse;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The server's own OpenAPI document, checked against real answers of every call. */
@ExtendWith(GraphInvariants.class)
class OpenApiContractTest {
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
  private static ApiFixture api;
  private static Vertx vertx;
  private static ResponseValidator validator;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
    vertx = Vertx.vertx();
    Answer document = api.call(GET, "/openapi.json");
    assertThat(document.status()).isEqualTo(200);
    // Vert.x's validator knows no application/x-ndjson; the repair stream is checked as plain text.
    String checkable = document.text().replace("application/x-ndjson", "text/plain");
    OpenAPIContract contract = OpenAPIContract.from(vertx, new JsonObject(checkable)).await();
    validator = ResponseValidator.create(vertx, contract);
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
    api.close();
  }

  private static Answer valid(String operationId, Answer answer) {
    Map<String, String> headers = new HashMap<>();
    answer.headers().forEach(header -> headers.put(header.getKey(), header.getValue()));
    String contentType = answer.headers().get("Content-Type");
    ValidatableResponse response = answer.text() == null || answer.text().isEmpty()
        ? ValidatableResponse.create(answer.status(), headers)
        : ValidatableResponse.create(answer.status(), headers, Buffer.buffer(answer.text()),
            contentType.split(";")[0].trim().replace("application/x-ndjson", "text/plain"));
    validator.validate(response, operationId).await();
    return answer;
  }

  @Test
  void everyCall_answersAsTheDocumentSays() {
    String board = valid("createNode", api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"o\"}}")).id();
    String pin = valid("createNode", api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}, \"colocateWith\": \"" + board + "\"}")).id();
    valid("getNode", api.call(GET, "/v1/nodes/" + board));
    valid("getNodes", api.call(GET, "/v1/nodes?ids=" + board + "," + pin + ",7"));
    valid("batchGetNodes", api.call(POST, "/v1/nodes:batchGet", "{\"ids\": [\"" + board + "\", \"" + pin + "\"]}"));
    valid("updateNode", api.call(PATCH, "/v1/nodes/" + board, "{\"data\": {\"title\": \"p\"}}", Map.of("If-Match", "\"1\"")));
    valid("replaceNode", api.call(PUT, "/v1/nodes/" + pin, "{\"data\": {\"link\": \"m\"}}"));
    valid("addEdge", api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "?waitForInverse=true",
        "{\"sequence\": 5, \"data\": {\"note\": \"n\"}}"));
    valid("getEdge", api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin));
    valid("getEdges", api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?limit=1"));
    valid("getEdges", api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?hydrate=true&order=asc"));
    valid("getEdges", api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?to=" + pin + "&state=all"));
    String unlinked = api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"u\"}}").id();
    Answer batch = valid("batchGetEdges", api.call(POST, "/v1/edges:batchGet", "{\"edges\": [{\"from\": \"" + board
        + "\", \"type\": \"board_has_pins\", \"to\": \"" + pin + "\"}, {\"from\": \"" + pin
        + "\", \"type\": \"pin_owned_by_board\", \"to\": \"" + board + "\"}, {\"from\": \"" + board
        + "\", \"type\": \"board_has_pins\", \"to\": \"" + unlinked + "\"}]}"));
    assertThat(batch.status()).isEqualTo(200);
    assertThat(batch.body().get("edges")).hasSize(2);
    assertThat(batch.body().get("missing").get(0).get("to").asText()).isEqualTo(unlinked);
    valid("archiveEdge", api.call(POST, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "/archive"));
    valid("restoreEdge", api.call(POST, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "/restore"));
    valid("archiveEdgesOf", api.call(POST, "/v1/nodes/" + board + "/archive-edges"));
    valid("restoreEdgesOf", api.call(POST, "/v1/nodes/" + board + "/restore-edges"));
    valid("getEdges", api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?state=archived"));
    valid("getEdges", api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?to=" + pin));
    valid("countEdges", api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins/count"));
    valid("removeEdge", api.call(DELETE, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin));
    valid("queryEdgeLists", api.call(POST, "/v1/edges/query", "{\"operation\": \"union\", \"lists\": [{\"from\": \"" + board + "\", \"type\": \"board_has_pins\"}, {\"from\": \"" + board + "\", \"type\": \"board_has_pins\"}], \"hydrate\": true}"));
    valid("queryEdgeLists", api.call(POST, "/v1/edges/query", "{\"operation\": \"intersection\", \"lists\": [{\"from\": \"" + board + "\", \"type\": \"board_has_pins\"}, {\"from\": \"" + board + "\", \"type\": \"board_has_pins\"}], \"count\": true}"));
    valid("bulkImport", api.call(POST, "/v1/bulk?name=contract-" + System.nanoTime(),
        "{\"node\": {\"ref\": \"c1\", \"type\": \"board\", \"data\": {\"title\": \"c\"}}}\n"
            + "{\"edge\": {\"from\": \"c1\", \"type\": \"board_has_pins\", \"to\": \"" + pin + "\"}}\n",
        Map.of("Content-Type", "application/x-ndjson")));
    String handle = "contract" + System.nanoTime();
    valid("createNode", api.call(POST, "/v1/nodes/account", "{\"data\": {\"handle\": \"" + handle + "\"}}"));
    valid("getNodeBy", api.call(GET, "/v1/nodes/account/by/handle/" + handle));
    valid("getNodeByQuery", api.call(GET, "/v1/nodes/account/by/handle?value=" + handle));
    assertThat(valid("createNode", api.call(POST, "/v1/nodes/account", "{\"data\": {\"handle\": \"" + handle + "\"}}"))
        .status()).isEqualTo(409);
    assertThat(valid("getNodeBy", api.call(GET, "/v1/nodes/account/by/handle/nobody")).status()).isEqualTo(404);
    valid("repairUnique", api.call(POST, "/v1/admin/unique/account/handle/repair", null, ADMIN));
    valid("getSchema", api.call(GET, "/v1/schema"));
    valid("defineNodeType", api.call(PUT, "/v1/schema/node-types/pin", "{\"id\": 3, \"fields\": "
        + api.call(GET, "/v1/schema").body().get("nodeTypes").get("pin").get("fields") + "}", ADMIN));
    valid("repair", api.call(POST, "/v1/admin/repair/board_has_pins", null, ADMIN));
    assertThat(valid("getShardMap", api.call(GET, "/v1/admin/shard-map", null, ADMIN)).body().get("ranges")).hasSize(2);
    assertThat(valid("getShardMap", api.call(GET, "/v1/admin/shard-map")).status()).isEqualTo(401);
    valid("readAtomically", api.call(POST, "/v1/read", "{\"nodes\": [\"" + board + "\", \"7\"], \"lists\": [{\"from\": \""
        + board + "\", \"type\": \"board_has_pins\", \"limit\": 5}]}"));
    valid("getChanges", api.call(GET, "/v1/changes?after=now&limit=5"));
    valid("getChangeGroup", api.call(GET, "/v1/changes/groups/contract"));
    assertThat(valid("commitChanges", api.call(POST, "/v1/changes/groups/contract/commit",
        "{\"member\": \"nobody\", \"cursor\": \"\"}")).status()).isEqualTo(404);
    valid("health", api.call(GET, "/health"));
    valid("metrics", api.call(GET, "/metrics"));
    valid("deleteNode", api.call(DELETE, "/v1/nodes/" + pin + "?cascade=true"));
  }

  @Test
  void everyKindOfError_answersAsTheDocumentSays() {
    assertThat(valid("getNode", api.call(GET, "/v1/nodes/x")).status()).isEqualTo(400);
    assertThat(valid("getNode", api.call(GET, "/v1/nodes/7")).status()).isIn(400, 404);
    assertThat(valid("createNode", api.call(POST, "/v1/nodes/spaceship", "{\"data\": {}}")).status()).isEqualTo(404);
    assertThat(valid("createNode", api.call(POST, "/v1/nodes/pin", "{\"data\": {}}")).status()).isEqualTo(422);
    String user = api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"e\"}}").id();
    assertThat(valid("updateNode", api.call(PATCH, "/v1/nodes/" + user, "{\"data\": {}}", Map.of("If-Match", "\"9\"")))
        .status()).isEqualTo(409);
    assertThat(valid("updateNode", api.call(PATCH, "/v1/nodes/" + user, "{\"data\": {}, \"if\": {\"name\": \"x\"}}"))
        .status()).isEqualTo(409);
    String board = api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"c\"}}").id();
    String pin = api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"c\"}}").id();
    assertThat(valid("addEdge", api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin, "{}",
        Map.of("If-None-Match", "*"))).status()).isEqualTo(200);
    assertThat(valid("addEdge", api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin, "{}",
        Map.of("If-None-Match", "*"))).status()).isEqualTo(409);
    assertThat(valid("defineNodeType", api.call(PUT, "/v1/schema/node-types/pin", "{\"id\": 3}")).status()).isEqualTo(401);
    assertThat(valid("defineNodeType", api.call(PUT, "/v1/schema/node-types/pin", "{\"id\": 99}", ADMIN)).status())
        .isEqualTo(409);
  }
}
