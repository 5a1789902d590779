package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.vertx.core.buffer.Buffer;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * {@code POST /v1/bulk}: an import streamed as NDJSON over real hosts. Counts equal rows (checked
 * after every test by {@link GraphInvariants}), every inverse copy is present and equal to its
 * forward row, a rerun under the same name creates nothing, and a bad line is refused in the
 * report while the rest are written.
 */
@ExtendWith(GraphInvariants.class)
class BulkImportTest {
  private static final Map<String, String> NDJSON = Map.of("Content-Type", "application/x-ndjson");
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  /** What an import answered: its lines, the nodes by reference, and the final report. */
  private record Imported(List<JsonNode> lines, Map<String, String> nodes, JsonNode report) {}

  private static Imported importLines(String name, String body) {
    Answer answer = api.send(POST, "/v1/bulk?name=" + name, Buffer.buffer(body), NDJSON);
    assertThat(answer.status()).as(answer.text()).isEqualTo(200);
    assertThat(answer.headers().get("Content-Type")).isEqualTo("application/x-ndjson");
    List<JsonNode> lines = new ArrayList<>();
    Map<String, String> nodes = new HashMap<>();
    for (String line : answer.text().split("\n")) {
      JsonNode json;
      try {
        json = ApiJson.MAPPER.readTree(line);
      } catch (java.io.IOException e) {
        throw new AssertionError("not a JSON line: " + line, e);
      }
      lines.add(json);
      if (json.has("nodes")) {
        json.get("nodes").fields().forEachRemaining(node -> nodes.put(node.getKey(), node.getValue().asText()));
      }
    }
    JsonNode last = lines.get(lines.size() - 1);
    assertThat(last.has("report")).as(last.toString()).isTrue();
    assertThat(last.has("error")).as("the import ended early: %s", last).isFalse();
    return new Imported(lines, nodes, last.get("report"));
  }

  private static String node(String ref, String type, String data) {
    return "{\"node\": {\"ref\": \"" + ref + "\", \"type\": \"" + type + "\", \"data\": " + data + "}}\n";
  }

  private static String edge(String from, String type, String to) {
    return "{\"edge\": {\"from\": \"" + from + "\", \"type\": \"" + type + "\", \"to\": \"" + to + "\"}}\n";
  }

  private static String name() {
    return "test-" + UUID.randomUUID().toString().substring(0, 8);
  }

  @Test
  void oneHundredThousandEdgesWithInversesKeepCountsEqualToRowsAndEveryInverse_andARerunCreatesNothing()
      throws Exception {
    int users = 2_000;
    int edges = 100_000;
    StringBuilder body = new StringBuilder();
    for (int i = 0; i < users; i++) {
      body.append(node("u" + i, "user", "{\"name\": \"user " + i + "\"}"));
    }
    Random random = new Random(7);
    Set<Long> pairs = new HashSet<>();
    while (pairs.size() < edges) {
      int from = random.nextInt(users);
      int to = random.nextInt(users);
      if (from != to && pairs.add((long) from * users + to)) {
        body.append(edge("u" + from, "follows", "u" + to));
      }
    }
    String name = name();

    Imported first = importLines(name, body.toString());

    assertThat(first.report().get("nodesCreated").asLong()).isEqualTo(users);
    assertThat(first.report().get("edgesCreated").asLong()).isEqualTo(edges);
    assertThat(first.report().get("refusedCount").asLong()).as(first.report().toString()).isZero();
    assertThat(first.report().get("inversesLeft").asLong()).isZero();
    assertThat(first.lines().stream().filter(line -> line.has("progress")).count())
        .as("progress after each batch").isGreaterThanOrEqualTo((users + edges) / BulkRoute.BATCH - 1);
    assertThat(first.nodes()).hasSize(users);
    Set<Long> froms = new HashSet<>();
    first.nodes().values().forEach(id -> froms.add(Long.parseUnsignedLong(id)));
    assertThat(api.tables().liveRowsFrom("follows", froms)).isEqualTo(edges);
    assertThat(api.tables().inverseDifferences("follows", "followed_by", froms)).isEmpty();
    assertThat(api.tables().liveRowsFrom("followed_by", froms)).isEqualTo(edges);

    Imported rerun = importLines(name, body.toString());

    assertThat(rerun.report().get("nodesCreated").asLong()).isZero();
    assertThat(rerun.report().get("nodesExisting").asLong()).isEqualTo(users);
    assertThat(rerun.report().get("edgesCreated").asLong()).isZero();
    assertThat(rerun.report().get("edgesUnchanged").asLong()).isEqualTo(edges);
    assertThat(rerun.nodes()).isEqualTo(first.nodes());
    assertThat(api.tables().liveRowsFrom("follows", froms)).isEqualTo(edges);
    assertThat(api.tables().inverseDifferences("follows", "followed_by", froms)).isEmpty();
    String someone = first.nodes().get("u0");
    assertThat(api.call(GET, "/v1/nodes/" + someone + "/edges/follows/count").body().get("count").asLong())
        .isEqualTo(api.tables().activeTargets("follows", io.quiver.store.NodeId.parse(someone).orElseThrow()).size());
  }

  @Test
  void aBadLineIsRefusedWithItsNumberAndWhy_andTheOtherLinesAreWritten() throws Exception {
    String existing = api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"old\"}}").id();
    String deleted = api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"gone\"}}").id();
    assertThat(api.call(io.vertx.core.http.HttpMethod.DELETE, "/v1/nodes/" + deleted).status()).isEqualTo(204);
    String body = node("a", "user", "{\"name\": \"a\"}")                      // 1
        + node("b", "board", "{\"title\": \"b\"}")                            // 2
        + node("a", "user", "{\"name\": \"again\"}")                          // 3 ref defined twice
        + node("c", "nosuchtype", "{}")                                        // 4 unknown type
        + node("d", "user", "{\"name\": 12}")                                  // 5 schema violation
        + "this is not json\n"                                                 // 6
        + edge("a", "follows", existing)                                       // 7 to an existing ID
        + edge("a", "follows", "nowhere")                                      // 8 unknown ref
        + edge("a", "follows", "b")                                            // 9 wrong node type
        + edge(deleted, "follows", "a")                                        // 10 FROM node gone
        + "\n"                                                                 // 11 blank: skipped
        + "{\"edge\": {\"from\": \"a\", \"type\": \"follows\", \"to\": \"" + existing
        + "\", \"data\": {\"since\": 2020}, \"state\": \"archived\"}}\n";      // 12 same edge again, archived

    Imported imported = importLines(name(), body);

    JsonNode report = imported.report();
    assertThat(report.get("nodesCreated").asLong()).isEqualTo(2);
    assertThat(report.get("edgesCreated").asLong()).isEqualTo(1);
    assertThat(report.get("edgesUpdated").asLong()).isEqualTo(1);
    Map<Long, String> refused = new HashMap<>();
    report.get("refused").forEach(line -> refused.put(line.get("line").asLong(), line.get("code").asText()));
    assertThat(refused).containsExactlyInAnyOrderEntriesOf(Map.of(
        3L, "invalid_request", 4L, "not_found", 5L, "schema_violation", 6L, "invalid_request",
        8L, "not_found", 9L, "invalid_request", 10L, "not_found"));
    String a = imported.nodes().get("a");
    JsonNode written = api.call(GET, "/v1/nodes/" + a + "/edges/follows/" + existing).body();
    assertThat(written.get("state").asText()).isEqualTo("archived");
    assertThat(written.get("data").get("since").asInt()).isEqualTo(2020);
    assertThat(api.call(GET, "/v1/nodes/" + a + "/edges/follows/count").body().get("count").asLong()).isZero();
    Await.until("the archived inverse", Duration.ofSeconds(5), () -> {
      JsonNode inverse = api.call(GET, "/v1/nodes/" + existing + "/edges/followed_by/" + a).body();
      return inverse.has("state") && inverse.get("state").asText().equals("archived");
    });
  }

  @Test
  void anImportNeedsANameAndAJsonBody() {
    Answer unnamed = api.send(POST, "/v1/bulk", Buffer.buffer(node("x", "user", "{}")), NDJSON);
    assertThat(unnamed.status()).isEqualTo(400);
    assertThat(unnamed.body().get("error").get("message").asText()).contains("name");

    Answer badName = api.send(POST, "/v1/bulk?name=no%20spaces", Buffer.buffer(node("x", "user", "{}")), NDJSON);
    assertThat(badName.status()).isEqualTo(400);

    Answer form = api.send(POST, "/v1/bulk?name=" + name(), Buffer.buffer("a=b"),
        Map.of("Content-Type", "application/x-www-form-urlencoded"));
    assertThat(form.status()).isEqualTo(415);
    assertThat(form.body().get("error").get("code").asText()).isEqualTo("unsupported_media_type");
  }

  @Test
  void aSecondRunOfANameWhileTheFirstGoesOn_isRefused503_onThisServerAndAnother_andTheNameIsFreeOnceItEnds()
      throws Exception {
    String name = name();
    io.vertx.core.Vertx vertx = io.vertx.core.Vertx.vertx();
    try (ApiFixture other = new ApiFixture()) {
      io.vertx.core.http.HttpClientRequest first = vertx.createHttpClient()
          .request(io.vertx.core.http.HttpMethod.POST, api.port(), "127.0.0.1", "/v1/bulk?name=" + name).await();
      first.setChunked(true).putHeader("Content-Type", "application/x-ndjson");
      // The answer's body is read from the moment it starts, on the client's event loop.
      io.vertx.core.Future<String> answered = first.response()
          .compose(response -> response.body().map(body -> response.statusCode() + " " + body));
      first.write(node("a", "user", "{\"name\": \"first\"}")).await();
      // The first run holds its name (its znode) once the server has read its head.
      var curator = io.quiver.store.testing.TestBackend.get().curator();
      String claim = io.quiver.store.testing.TestBackend.SCHEMA_PATH + "-imports/" + name;
      Await.until("the first run holds its name", java.time.Duration.ofSeconds(10), () -> {
        try {
          return curator.checkExists().forPath(claim) != null;
        } catch (Exception e) {
          return false;
        }
      });

      Answer here = api.send(POST, "/v1/bulk?name=" + name, Buffer.buffer(node("b", "user", "{\"name\": \"b\"}")), NDJSON);
      Answer there = other.send(POST, "/v1/bulk?name=" + name, Buffer.buffer(node("b", "user", "{\"name\": \"b\"}")),
          NDJSON);
      for (Answer refused : List.of(here, there)) {
        assertThat(refused.status()).as(refused.text()).isEqualTo(503);
        assertThat(refused.body().path("error").path("message").asText()).contains("running already");
      }

      first.end(edge("a", "follows", "a")).await();
      assertThat(answered.await()).startsWith("200 ").contains("\"report\"");
      Imported rerun = importLines(name, node("a", "user", "{\"name\": \"first\"}") + node("c", "user", "{\"name\": \"c\"}"));
      assertThat(rerun.report().get("nodesExisting").asLong()).as("the first run's node found, not made twice")
          .isEqualTo(1);
      assertThat(rerun.report().get("nodesCreated").asLong()).isEqualTo(1);
    } finally {
      vertx.close().await();
    }
  }

  @Test
  void aNameThatIsNoPathSegment_isRefused400_withoutAClassNameInTheMessage() {
    for (String name : List.of("..", ".", "-x", ".hidden")) {
      Answer refused = api.send(POST, "/v1/bulk?name=" + name, Buffer.buffer(node("x", "user", "{}")), NDJSON);
      assertThat(refused.status()).as("name '%s': %s", name, refused.text()).isEqualTo(400);
      assertThat(refused.body().path("error").path("message").asText()).contains("starting with a letter")
          .doesNotContain("Exception");
    }
  }

  @Test
  void aRunWhoseClientFallsSilentMidBody_letsGoOfItsName_whenTheIdleTimeoutClosesItsConnection() throws Exception {
    String name = name();
    var http = new io.quiver.api.config.QuiverConfig.Http(0, io.quiver.api.config.QuiverConfig.DEFAULT_BODY_LIMIT_BYTES,
        Duration.ofSeconds(10), Duration.ofSeconds(10), Duration.ofSeconds(1),
        io.quiver.api.config.QuiverConfig.DEFAULT_MAX_REQUEST_LINE_BYTES);
    var curator = io.quiver.store.testing.TestBackend.get().curator();
    String claim = io.quiver.store.testing.TestBackend.SCHEMA_PATH + "-imports/" + name;
    try (ApiFixture quick = new ApiFixture(http);
        java.net.Socket socket = new java.net.Socket("127.0.0.1", quick.port())) {
      java.io.OutputStream out = socket.getOutputStream();
      String line = node("a", "user", "{\"name\": \"cut\"}");
      out.write(("POST /v1/bulk?name=" + name + " HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-ndjson\r\n"
          + "Transfer-Encoding: chunked\r\n\r\n" + Integer.toHexString(line.length()) + "\r\n" + line + "\r\n")
          .getBytes(java.nio.charset.StandardCharsets.UTF_8));
      out.flush();
      Await.until("the run holds its name", Duration.ofSeconds(10), () -> exists(curator, claim));
      // The client sends nothing more and keeps its socket open: the server's idle timeout (1 s) closes it.
      Await.until("the silent run lets go of its name", Duration.ofSeconds(5), () -> !exists(curator, claim));
    }
    Imported rerun = importLines(name, node("a", "user", "{\"name\": \"cut\"}"));
    assertThat(rerun.report().get("nodesCreated").asLong() + rerun.report().get("nodesExisting").asLong()).isEqualTo(1);
  }

  @Test
  void colocateWithNamingARefOfAnEarlierLineOfTheSameBatch_isPlacedOnItsShard() {
    String name = name();
    Imported imported = importLines(name, node("board", "board", "{\"title\": \"b\"}")
        + "{\"node\": {\"ref\": \"pin\", \"type\": \"pin\", \"data\": {\"link\": \"l\"}, \"colocateWith\": \"board\"}}\n");
    assertThat(imported.report().get("refusedCount").asLong()).as(imported.report().toString()).isZero();
    NodeId board = NodeId.parse(imported.nodes().get("board")).orElseThrow();
    NodeId pin = NodeId.parse(imported.nodes().get("pin")).orElseThrow();
    assertThat(pin.shard()).isEqualTo(board.shard());
  }

  @Test
  void anEdgeLineNamingARefDefinedOnALaterLine_isRefused_asAcrossBatches() {
    Imported imported = importLines(name(), node("a", "user", "{\"name\": \"a\"}") + edge("a", "follows", "b")
        + node("b", "user", "{\"name\": \"b\"}"));
    assertThat(imported.report().get("refusedCount").asLong()).as(imported.report().toString()).isEqualTo(1);
    JsonNode refusal = imported.report().get("refused").get(0);
    assertThat(refusal.get("line").asLong()).isEqualTo(2);
    assertThat(refusal.get("code").asText()).isEqualTo("not_found");
  }

  @Test
  void aLineOverTheBodyLimit_endsTheImportWithTooLarge_asCreateNodeAnswers413ForTheSameNode() {
    String big = "x".repeat(1 << 20);
    Answer created = api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"" + big + "\"}}");
    assertThat(created.status()).isEqualTo(413);
    Answer imported = api.send(POST, "/v1/bulk?name=" + name(), Buffer.buffer(node("big", "user",
        "{\"name\": \"" + big + "\"}")), NDJSON);
    String[] lines = imported.text().trim().split("\n");
    JsonNode last;
    try {
      last = io.quiver.api.http.ApiJson.MAPPER.readTree(lines[lines.length - 1]);
    } catch (java.io.IOException e) {
      throw new AssertionError(imported.text(), e);
    }
    assertThat(last.path("error").path("code").asText()).as(imported.text()).isEqualTo("too_large");
    assertThat(last.path("report").path("nodesCreated").asLong()).isZero();
  }

  private static boolean exists(org.apache.curator.framework.CuratorFramework curator, String path) {
    try {
      return curator.checkExists().forPath(path) != null;
    } catch (Exception e) {
      return false;
    }
  }
}
