package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.DELETE;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.vertx.core.buffer.Buffer;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Nested;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** API v1 over HTTP, end to end: a real server, real MariaDB hosts, a real ZooKeeper. */
@ExtendWith(GraphInvariants.class)
class GraphApiTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  static Answer create(String type, String data) {
    Answer answer = api.call(POST, "/v1/nodes/" + type, "{\"data\": " + data + "}");
    assertThat(answer.status()).as(answer.text()).isEqualTo(201);
    return answer;
  }

  static String board() {
    return create("board", "{\"title\": \"t\"}").id();
  }

  static String pin(String link) {
    return create("pin", "{\"link\": \"" + link + "\"}").id();
  }

  static Answer addEdge(String from, String to, String body) {
    Answer answer = api.call(PUT, "/v1/nodes/" + from + "/edges/board_has_pins/" + to, body);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    return answer;
  }

  static long count(String from) {
    return api.call(GET, "/v1/nodes/" + from + "/edges/board_has_pins/count").body().get("count").asLong();
  }

  static void assertError(Answer answer, int status, String code) {
    assertThat(answer.status()).as(answer.text()).isEqualTo(status);
    assertThat(answer.headers().get("Content-Type")).startsWith("application/json");
    assertThat(answer.body().path("error").path("code").asText()).isEqualTo(code);
    assertThat(answer.body().path("error").path("message").asText()).isNotBlank();
    assertThat(answer.text()).doesNotContain("\tat ").doesNotContain("Exception");
  }

  @Nested
  class Nodes {
    @Test
    void createNode_answers201WithLocationAndTheNode() {
      Answer created = create("pin", "{\"link\": \"https://a\"}");

      assertThat(created.headers().get("Location")).isEqualTo("/v1/nodes/" + created.id());
      JsonNode node = created.body();
      assertThat(node.get("id").isTextual()).as("IDs are strings").isTrue();
      assertThat(node.get("type").asText()).isEqualTo("pin");
      assertThat(node.get("shard").asInt()).isEqualTo(NodeId.parse(created.id()).orElseThrow().shard());
      assertThat(node.get("data").get("details").asText()).as("default applied").isEmpty();
      assertThat(node.get("version").asLong()).isEqualTo(1);
      assertThat(node.get("createdAt").asText()).matches("\\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\d\\.\\d{6}Z");
    }

    @Test
    void aReadMayTolerateBoundedStaleness_byItsHeader_andAnotherConsistencyIsRefused() {
      String id = pin("https://stale");
      Map<String, String> tolerant = Map.of("Quiver-Consistency", "bounded-staleness");

      Answer read = api.call(GET, "/v1/nodes/" + id, null, tolerant);
      assertThat(read.status()).isEqualTo(200);
      assertThat(read.body().get("data").get("link").asText()).isEqualTo("https://stale");
      assertThat(api.call(GET, "/v1/nodes/" + id, null, Map.of("Quiver-Consistency", "primary")).status())
          .isEqualTo(200);
      assertThat(api.call(GET, "/v1/nodes?ids=" + id, null, tolerant).status()).isEqualTo(200);
      Answer refused = api.call(GET, "/v1/nodes/" + id, null, Map.of("Quiver-Consistency", "eventual"));
      assertError(refused, 400, "invalid_request");
      assertThat(refused.text()).contains("Quiver-Consistency");
    }

    @Test
    void getNode_answersTheNodeWithItsVersionAsETag() {
      String id = pin("https://get");

      Answer read = api.call(GET, "/v1/nodes/" + id);

      assertThat(read.status()).isEqualTo(200);
      assertThat(read.headers().get("ETag")).isEqualTo("\"1\"");
      assertThat(read.body().get("data").get("link").asText()).isEqualTo("https://get");
    }

    @Test
    void createNode_withColocateWith_landsOnThatShard_andIdsMayBeNumbers() {
      String board = board();
      long boardId = Long.parseLong(board);

      Answer pin = api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}, \"colocateWith\": " + boardId + "}");

      assertThat(pin.status()).isEqualTo(201);
      assertThat(pin.body().get("shard").asInt()).isEqualTo(NodeId.parse(board).orElseThrow().shard());
    }

    @Test
    void createNode_spreadsNodesOverBothHosts() {
      Set<String> hosts = IntStream.range(0, 30)
          .mapToObj(i -> api.hostOf(create("user", "{\"name\": \"u" + i + "\"}").body().get("shard").asInt()))
          .collect(Collectors.toSet());
      assertThat(hosts).containsExactlyInAnyOrder("h1", "h2");
    }

    @Test
    void getNodes_answersInRequestOrder_andListsMissing() {
      String a = pin("a");
      String b = board();
      String absent = NodeId.of(2, 3, NodeId.MAX_LOCAL - 9).toString();

      Answer batch = api.call(GET, "/v1/nodes?ids=" + b + "," + absent + "," + a);

      assertThat(batch.status()).isEqualTo(200);
      assertThat(batch.body().get("nodes").findValuesAsText("id")).containsExactly(b, a);
      assertThat(batch.body().get("missing").get(0).asText()).isEqualTo(absent);
    }

    @Test
    void getNodes_withMoreThan500Ids_isRefused() {
      String ids = IntStream.range(0, 501).mapToObj(i -> "1").collect(Collectors.joining(","));
      assertError(api.call(GET, "/v1/nodes?ids=" + ids), 400, "invalid_request");
    }

    @Test
    void updateNode_mergesThePatch_andHonoursIfMatch() {
      String id = pin("https://u");

      Answer updated = api.call(PATCH, "/v1/nodes/" + id, "{\"data\": {\"details\": \"d\"}}", Map.of("If-Match", "\"1\""));
      Answer stale = api.call(PATCH, "/v1/nodes/" + id, "{\"data\": {\"details\": \"x\"}}", Map.of("If-Match", "\"1\""));

      assertThat(updated.status()).isEqualTo(200);
      assertThat(updated.body().get("version").asLong()).isEqualTo(2);
      assertThat(updated.headers().get("ETag")).isEqualTo("\"2\"");
      assertThat(updated.body().get("data").get("link").asText()).isEqualTo("https://u");
      assertError(stale, 409, "version_conflict");
      assertThat(api.call(GET, "/v1/nodes/" + id).body().get("data").get("details").asText()).isEqualTo("d");
    }

    @Test
    void replaceNode_replacesTheData() {
      String id = create("pin", "{\"link\": \"l\", \"extra\": 1}").id();

      Answer replaced = api.call(PUT, "/v1/nodes/" + id, "{\"data\": {\"link\": \"m\"}}");

      assertThat(replaced.status()).isEqualTo(200);
      assertThat(replaced.body().get("data").has("extra")).isFalse();
      assertThat(replaced.body().get("data").get("link").asText()).isEqualTo("m");
    }

    @Test
    void deleteNode_answers204_thenTheNodeIsNotFound() {
      String id = pin("bye");

      assertThat(api.call(DELETE, "/v1/nodes/" + id).status()).isEqualTo(204);
      assertError(api.call(GET, "/v1/nodes/" + id), 404, "not_found");
    }

    @Test
    void getSchema_answersTheRegistry() {
      Answer schema = api.call(GET, "/v1/schema");
      assertThat(schema.status()).isEqualTo(200);
      assertThat(schema.body().get("nodeTypes").has("pin")).isTrue();
      assertThat(schema.body().get("edgeTypes").get("board_has_pins").get("inverse").asText()).isEqualTo("pin_owned_by_board");
    }
  }

  @Nested
  class Edges {
    @Test
    void getEdgesTo_amongFiveHundredMixedIds_answersExactlyTheActiveEdges_newestFirst_cachedOrNot() throws Exception {
      String board = board();
      List<String> pins = new ArrayList<>();
      for (int i = 0; i < 120; i++) {
        pins.add(pin("m" + i));
        if (i < 100) {
          addEdge(board, pins.get(i), "{\"sequence\": " + (1000 + i) + "}");
        }
      }
      for (int i = 0; i < 30; i++) {
        assertThat(api.call(DELETE, "/v1/nodes/" + board + "/edges/board_has_pins/" + pins.get(i * 3)).status())
            .isEqualTo(204);
      }
      // Pins of no node at all, on shards of the map: valid targets without an edge.
      NodeId somePin = NodeId.parse(pins.get(0)).orElseThrow();
      List<String> asked = new ArrayList<>(pins);
      for (int i = 0; asked.size() < 500; i++) {
        asked.add(NodeId.of(i % 8, somePin.type(), NodeId.MAX_LOCAL - i).toString());
      }
      java.util.Collections.shuffle(asked, new java.util.Random(7));
      List<String> expected = api.activeTargets("board_has_pins", NodeId.parse(board).orElseThrow()).stream()
          .map(String::valueOf).toList();
      assertThat(expected).hasSize(70);

      String path = "/v1/nodes/" + board + "/edges/board_has_pins?to=" + String.join(",", asked);
      Answer cold = api.call(GET, path);
      api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?limit=100");
      Answer warm = api.call(GET, path);

      for (Answer answer : List.of(cold, warm)) {
        assertThat(answer.status()).as(answer.text()).isEqualTo(200);
        assertThat(answer.body().get("edges").findValuesAsText("to")).containsExactlyElementsOf(expected);
        assertThat(answer.body().get("next").isNull()).isTrue();
      }
    }

    @Test
    void getEdgesTo_withState_answersTheArchived_orAll_coldOrWarm() {
      String board = board();
      String kept = pin("kept");
      String hidden = pin("hidden");
      addEdge(board, kept, "{\"sequence\": 1}");
      addEdge(board, hidden, "{\"sequence\": 2, \"state\": \"archived\"}");
      String path = "/v1/nodes/" + board + "/edges/board_has_pins?to=" + kept + "," + hidden;

      for (int read = 0; read < 2; read++) {
        assertThat(api.call(GET, path).body().get("edges").findValuesAsText("to")).containsExactly(kept);
        Answer archived = api.call(GET, path + "&state=archived");
        assertThat(archived.body().get("edges").findValuesAsText("to")).containsExactly(hidden);
        assertThat(archived.body().get("edges").get(0).get("state").asText()).isEqualTo("archived");
        assertThat(api.call(GET, path + "&state=all").body().get("edges").findValuesAsText("to"))
            .containsExactly(hidden, kept);
      }
      assertError(api.call(GET, path + "&state=some"), 400, "invalid_request");
    }

    @Test
    void batchGetEdges_answersEdgesOfManySources_archivedIncluded_andTheMissing_inRequestOrder_coldOrWarm() {
      List<String> boards = List.of(board(), board(), board());
      String pin = pin("liked by many boards");
      addEdge(boards.get(0), pin, "{\"sequence\": 3, \"data\": {\"note\": \"n\"}}");
      addEdge(boards.get(2), pin, "{\"state\": \"archived\"}");
      StringBuilder body = new StringBuilder("{\"edges\": [");
      for (int i = 0; i < boards.size(); i++) {
        body.append(i == 0 ? "" : ", ").append("{\"from\": \"").append(boards.get(i))
            .append("\", \"type\": \"board_has_pins\", \"to\": ").append(pin).append('}');
      }
      body.append("]}");

      for (int read = 0; read < 2; read++) {
        Answer batch = api.call(POST, "/v1/edges:batchGet", body.toString());
        assertThat(batch.status()).as(batch.text()).isEqualTo(200);
        assertThat(batch.body().get("edges").findValuesAsText("from")).containsExactly(boards.get(0), boards.get(2));
        assertThat(batch.body().get("edges").get(0).get("data").get("note").asText()).isEqualTo("n");
        assertThat(batch.body().get("edges").get(1).get("state").asText()).isEqualTo("archived");
        assertThat(batch.body().get("missing")).hasSize(1);
        assertThat(batch.body().get("missing").get(0).get("from").asText()).isEqualTo(boards.get(1));
        assertThat(batch.body().get("missing").get(0).get("type").asText()).isEqualTo("board_has_pins");
        assertThat(batch.body().get("missing").get(0).get("to").asText()).isEqualTo(pin);
      }
      assertThat(api.call(DELETE, "/v1/nodes/" + boards.get(0) + "/edges/board_has_pins/" + pin).status()).isEqualTo(204);
      assertThat(api.call(POST, "/v1/edges:batchGet", body.toString()).body().get("missing")).as("after a removal")
          .hasSize(2);
    }

    @Test
    void batchGetEdges_refusesNoEdges_moreThan500_strangeMembers_andAnEndOfTheWrongType_changingNothing() {
      String board = board();
      String pin = pin("p");
      String one = "{\"from\": \"" + board + "\", \"type\": \"board_has_pins\", \"to\": \"" + pin + "\"}";
      String many = String.join(", ", java.util.Collections.nCopies(501, one));

      assertError(api.call(POST, "/v1/edges:batchGet", "{\"edges\": []}"), 400, "invalid_request");
      assertError(api.call(POST, "/v1/edges:batchGet", "{\"edges\": [" + many + "]}"), 400, "invalid_request");
      assertError(api.call(POST, "/v1/edges:batchGet", "{\"ids\": [" + one + "]}"), 400, "invalid_request");
      assertError(api.call(POST, "/v1/edges:batchGet", "{\"edges\": [{\"from\": \"" + board + "\"}]}"), 400,
          "invalid_request");
      assertError(api.call(POST, "/v1/edges:batchGet", "{\"edges\": [{\"from\": \"" + board
          + "\", \"type\": \"board_has_pins\", \"to\": \"" + pin + "\", \"state\": \"x\"}]}"), 400, "invalid_request");
      assertError(api.call(POST, "/v1/edges:batchGet", "{\"edges\": [" + one + ", {\"from\": \"" + board
          + "\", \"type\": \"board_has_pins\", \"to\": \"" + board + "\"}]}"), 400, "invalid_request");
      assertError(api.call(GET, "/v1/edges:batchGet"), 405, "method_not_allowed");
      assertThat(count(board)).isZero();
    }

    @Test
    void getEdgesTo_refusesMoreThan500Targets_andPageParametersBeside_it() {
      String board = board();
      String pin = pin("one");
      String many = String.join(",", java.util.Collections.nCopies(501, pin));
      assertError(api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?to=" + many), 400, "invalid_request");
      assertError(api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?to=" + pin + "&limit=5"), 400,
          "invalid_request");
      assertError(api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?to="), 400, "invalid_request");
      assertError(api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?to=" + board), 400, "invalid_request");
    }

    @Test
    void getEdges_answersNewestSequenceFirst() {
      String board = board();
      List<String> pins = new ArrayList<>();
      for (int i = 0; i < 4; i++) {
        pins.add(pin("p" + i));
        addEdge(board, pins.get(i), i == 0 ? null : "{\"sequence\": " + (10 + i) + "}");
      }
      // The first edge took the write time as its sequence, far above 13.
      Answer page = api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins");

      assertThat(page.status()).isEqualTo(200);
      assertThat(page.body().get("edges").findValuesAsText("to"))
          .containsExactly(pins.get(0), pins.get(3), pins.get(2), pins.get(1));
      assertThat(page.body().get("next").isNull()).isTrue();
      assertThat(api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?order=asc").body().get("edges")
          .findValuesAsText("to")).containsExactly(pins.get(1), pins.get(2), pins.get(3), pins.get(0));
    }

    @Test
    void getEdges_pagingByCursor_returnsEveryEdgeOnce_whileEdgesAreAdded() {
      String board = board();
      Set<String> original = new HashSet<>();
      for (int i = 0; i < 17; i++) {
        String pin = pin("c" + i);
        original.add(pin);
        addEdge(board, pin, "{\"sequence\": " + (i % 5) + "}");
      }
      List<String> seen = new ArrayList<>();
      String next = null;
      do {
        Answer page = api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?limit=4"
            + (next == null ? "" : "&after=" + next));
        assertThat(page.status()).isEqualTo(200);
        seen.addAll(page.body().get("edges").findValuesAsText("to"));
        next = page.body().get("next").isNull() ? null : page.body().get("next").asText();
        addEdge(board, pin("late"), null);
      } while (next != null);

      assertThat(seen).doesNotHaveDuplicates().hasSize(17).containsAll(original);
    }

    @Test
    void countEdges_equalsActiveEdges_afterAddsReaddsAndRemoves() {
      String board = board();
      List<String> pins = IntStream.range(0, 5).mapToObj(i -> pin("n" + i)).toList();
      pins.forEach(p -> addEdge(board, p, null));
      addEdge(board, pins.get(0), "{}");
      addEdge(board, pins.get(0), "");
      assertThat(api.call(DELETE, "/v1/nodes/" + board + "/edges/board_has_pins/" + pins.get(1)).status()).isEqualTo(204);
      assertThat(api.call(DELETE, "/v1/nodes/" + board + "/edges/board_has_pins/" + pins.get(1)).status()).isEqualTo(204);

      assertThat(count(board)).isEqualTo(4);
      assertThat(api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins").body().get("edges").size()).isEqualTo(4);
      assertError(api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins/" + pins.get(1)), 404, "not_found");
    }

    @Test
    void edgeWrites_sayWhatHappened_inQuiverEdge_withTheStatusCodesUnchanged() {
      String board = board();
      String pin = pin("h");
      String path = "/v1/nodes/" + board + "/edges/board_has_pins/" + pin;

      Answer created = api.call(PUT, path, null);
      Answer unchanged = api.call(PUT, path, null);
      Answer updated = api.call(PUT, path, "{\"data\": {\"note\": \"n\"}}");
      Answer removed = api.call(DELETE, path);
      Answer absent = api.call(DELETE, path);

      assertThat(List.of(created, unchanged, updated)).extracting(Answer::status).containsOnly(200);
      assertThat(List.of(removed, absent)).extracting(Answer::status).containsOnly(204);
      assertThat(List.of(created, unchanged, updated, removed, absent))
          .extracting(answer -> answer.headers().get("Quiver-Edge"))
          .containsExactly("created", "unchanged", "updated", "removed", "absent");
    }

    @Test
    void addEdge_withSequenceAndData_thenGetEdge_answersThem() {
      String board = board();
      String pin = pin("e");

      Answer added = addEdge(board, pin, "{\"sequence\": 42, \"data\": {\"note\": \"hi\"}}");
      Answer read = api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin);

      assertThat(read.status()).isEqualTo(200);
      assertThat(read.body()).isEqualTo(added.body());
      assertThat(read.body().get("sequence").asLong()).isEqualTo(42);
      assertThat(read.body().get("data").get("note").asText()).isEqualTo("hi");
      assertThat(read.body().get("from").asText()).isEqualTo(board);
    }

    @Test
    void getEdges_hydrated_carriesEachTargetNode() {
      String board = board();
      String pin = pin("https://h");
      addEdge(board, pin, null);

      Answer page = api.call(GET, "/v1/nodes/" + board + "/edges/board_has_pins?hydrate=true");

      assertThat(page.body().get("edges").get(0).get("node").get("data").get("link").asText()).isEqualTo("https://h");
      assertThat(page.body().get("missing").size()).isZero();
    }
  }

  @Nested
  class BadInput {
    @Test
    void malformedJson_is400_andCreatesNothing() throws Exception {
      long before = api.nodeRows("board");
      assertError(api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": "), 400, "invalid_request");
      assertError(api.call(POST, "/v1/nodes/board", "[1, 2]"), 400, "invalid_request");
      assertError(api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"t\"}, \"colour\": 1}"), 400, "invalid_request");
      assertThat(api.nodeRows("board")).isEqualTo(before);
    }

    @Test
    void unknownNodeType_is404() {
      assertError(api.call(POST, "/v1/nodes/spaceship", "{\"data\": {}}"), 404, "not_found");
    }

    @Test
    void unknownEdgeType_is404() {
      assertError(api.call(GET, "/v1/nodes/" + board() + "/edges/nope"), 404, "not_found");
    }

    @Test
    void malformedIds_are400() {
      assertError(api.call(GET, "/v1/nodes/12x"), 400, "invalid_request");
      assertError(api.call(GET, "/v1/nodes/-4"), 400, "invalid_request");
      assertError(api.call(GET, "/v1/nodes/99999999999999999999"), 400, "invalid_request");
      assertError(api.call(PUT, "/v1/nodes/" + board() + "/edges/board_has_pins/xyz"), 400, "invalid_request");
      assertError(api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}, \"colocateWith\": \"abc\"}"), 400, "invalid_request");
    }

    @Test
    void idWithShardOutsideTheMap_is400_andCreatesNothing() throws Exception {
      String outside = NodeId.of(9000, 2, 1).toString();
      long before = api.nodeRows("pin");

      assertError(api.call(GET, "/v1/nodes/" + outside), 400, "invalid_request");
      assertError(api.call(PUT, "/v1/nodes/" + outside + "/edges/board_has_pins/" + pin("x")), 400, "invalid_request");
      assertError(api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}, \"colocateWith\": \"" + outside + "\"}"),
          400, "invalid_request");
      assertThat(api.nodeRows("pin")).isEqualTo(before + 1);
    }

    @Test
    void idOfTheWrongNodeTypeForTheEdgeType_is400_andAddsNoEdge() throws Exception {
      String board = board();
      String user = create("user", "{\"name\": \"u\"}").id();
      long before = api.edgeRows("board_has_pins");

      Answer answer = api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + user);

      assertError(answer, 400, "invalid_request");
      assertThat(answer.body().get("error").get("message").asText()).contains("pin").contains("user");
      assertThat(api.edgeRows("board_has_pins")).isEqualTo(before);
      assertThat(count(board)).isZero();
    }

    @Test
    void bodyOverTheLimit_is413_andCreatesNothing() throws Exception {
      long before = api.nodeRows("pin");
      String big = "{\"data\": {\"link\": \"" + "x".repeat(1 << 20) + "\"}}";

      Answer answer = api.send(POST, "/v1/nodes/pin", Buffer.buffer(big), Map.of());

      assertError(answer, 413, "too_large");
      assertThat(api.nodeRows("pin")).isEqualTo(before);
    }

    @Test
    void dataBreakingTheSchema_is422_namingEachField_andCreatesNothing() throws Exception {
      long before = api.nodeRows("pin");

      Answer answer = api.call(POST, "/v1/nodes/pin", "{\"data\": {\"details\": 3}}");

      assertError(answer, 422, "schema_violation");
      JsonNode fields = answer.body().get("error").get("details").get("fields");
      assertThat(fields.has("data.link")).isTrue();
      assertThat(fields.has("data.details")).isTrue();
      assertThat(api.nodeRows("pin")).isEqualTo(before);
    }

    @Test
    void badQueryParameters_are400() {
      String board = board();
      String path = "/v1/nodes/" + board + "/edges/board_has_pins?";
      assertError(api.call(GET, path + "limit=0"), 400, "invalid_request");
      assertError(api.call(GET, path + "limit=1001"), 400, "invalid_request");
      assertError(api.call(GET, path + "limit=ten"), 400, "invalid_request");
      assertError(api.call(GET, path + "order=sideways"), 400, "invalid_request");
      assertError(api.call(GET, path + "after=garbage"), 400, "invalid_request");
      assertError(api.call(GET, path + "minSeq=9&maxSeq=1"), 400, "invalid_request");
      assertError(api.call(GET, path + "hydrate=maybe"), 400, "invalid_request");
      assertError(api.call(PATCH, "/v1/nodes/" + board, "{\"data\": {}}", Map.of("If-Match", "\"v1\"")), 400, "invalid_request");
    }

    @Test
    void unknownPath_is404Json() {
      assertError(api.call(GET, "/v2/whatever"), 404, "not_found");
    }
  }

  @Test
  void health_reportsEveryHostAndZooKeeperUp() {
    Answer health = api.call(GET, "/health");
    assertThat(health.status()).isEqualTo(200);
    assertThat(health.body().get("hosts").get("h1").asText()).isEqualTo("up");
    assertThat(health.body().get("hosts").get("h2").asText()).isEqualTo("up");
    assertThat(health.body().get("zookeeper").asText()).isEqualTo("up");
  }
}
