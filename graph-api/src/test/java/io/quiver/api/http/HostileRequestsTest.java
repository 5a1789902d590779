package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.DELETE;
import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.testing.ApiClient;
import io.quiver.api.testing.ApiFixture;
import io.quiver.api.testing.RawHttp;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.net.SocketException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Requests a hostile or careless client sends, each refused with a clear 4xx and the JSON error
 * body, and each changing nothing. Sent raw where a client library would fix them up.
 */
@ExtendWith(GraphInvariants.class)
class HostileRequestsTest {
  private static final String JSON = "application/json";
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    api = new ApiFixture();
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  private static String user(String name) {
    return api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"" + name + "\"}}").id();
  }

  private static RawHttp.Answer raw(String method, String path) {
    return RawHttp.send(api.port(), method + " " + path + " HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n");
  }

  private static RawHttp.Answer rawBody(String method, String path, String contentType, byte[] body) {
    return RawHttp.send(api.port(), RawHttp.request(method, path, contentType, body));
  }

  private static RawHttp.Answer rawJson(String method, String path, String body) {
    return rawBody(method, path, JSON, body.getBytes(StandardCharsets.UTF_8));
  }

  private static void assertRefused(RawHttp.Answer answer, int status, String code) {
    assertThat(answer.status()).as(answer.head() + "\n" + answer.body()).isEqualTo(status);
    assertThat(answer.isJsonError()).as("a JSON error body: " + answer.body()).isTrue();
    assertThat(answer.code()).isEqualTo(code);
  }

  // ---- paths ----

  @Test
  void encodedDotSegments_areRefusedBeforeRouting_andDeleteNothing() throws Exception {
    String first = user("first");
    String other = user("other");

    assertRefused(raw("DELETE", "/v1/nodes/" + first + "/edges/%2e%2e/%2e%2e/" + other), 400, "invalid_request");
    assertRefused(raw("DELETE", "/v1/nodes/" + first + "/edges/%2E%2E/%2E%2E/" + other), 400, "invalid_request");
    assertRefused(raw("DELETE", "/v1/nodes/" + first + "/edges/../../" + other), 400, "invalid_request");
    assertRefused(raw("GET", "/v1/nodes/%2E%2E/%2E%2E/health"), 400, "invalid_request");
    assertRefused(raw("GET", "/v1/nodes/./" + other), 400, "invalid_request");

    assertThat(api.call(GET, "/v1/nodes/" + other).status()).as("nothing was deleted").isEqualTo(200);
  }

  @Test
  void encodedSlashes_badEscapes_andControlCharacters_inAPath_areRefused() {
    assertRefused(raw("GET", "/v1/nodes/1%2F2"), 400, "invalid_request");
    assertRefused(raw("GET", "/v1/nodes/1%5c2"), 400, "invalid_request");
    assertRefused(raw("GET", "/v1/nodes/%"), 400, "invalid_request");
    assertRefused(raw("GET", "/v1/nodes/%zz"), 400, "invalid_request");
    assertRefused(raw("GET", "/v1/nodes/%C0%AF"), 400, "invalid_request");
    assertRefused(raw("GET", "/v1/nodes/%00"), 400, "invalid_request");
  }

  @Test
  void aRequestWithoutAHost_is400() {
    assertRefused(RawHttp.send(api.port(), "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n"), 400, "invalid_request");
  }

  // ---- bodies ----

  @Test
  void unpairedSurrogates_andBytesThatAreNotUtf8_areRefused_namingWhere_andStoreNothing() throws Exception {
    long before = api.nodeRows("user");

    RawHttp.Answer escaped = rawJson("POST", "/v1/nodes/user", "{\"data\": {\"name\": \"\\ud800\"}}");
    assertRefused(escaped, 400, "invalid_request");
    assertThat(escaped.message()).contains("data.name");
    assertRefused(rawJson("POST", "/v1/nodes/user", "{\"data\": {\"name\": \"n\", \"\\udc00\": 1}}"), 400,
        "invalid_request");
    for (byte[] bad : List.of(
        new byte[] {(byte) 0xED, (byte) 0xA0, (byte) 0x80},               // an encoded surrogate
        new byte[] {(byte) 0xC0, (byte) 0xAF},                            // an overlong '/'
        new byte[] {(byte) 0xF4, (byte) 0x90, (byte) 0x80, (byte) 0x80},  // past U+10FFFF
        new byte[] {(byte) 0xFF})) {
      assertRefused(rawBody("POST", "/v1/nodes/user", JSON, withName(bad)), 400, "invalid_request");
    }

    assertThat(api.nodeRows("user")).isEqualTo(before);
  }

  private static byte[] withName(byte[] inside) {
    byte[] start = "{\"data\": {\"name\": \"a".getBytes(StandardCharsets.UTF_8);
    byte[] end = "b\"}}".getBytes(StandardCharsets.UTF_8);
    byte[] all = new byte[start.length + inside.length + end.length];
    System.arraycopy(start, 0, all, 0, start.length);
    System.arraycopy(inside, 0, all, start.length, inside.length);
    System.arraycopy(end, 0, all, start.length + inside.length, end.length);
    return all;
  }

  @Test
  void numbersBeyondTheRangeOfADouble_areRefused_notStoredAsAnotherType() throws Exception {
    long before = api.nodeRows("user");
    for (String huge : List.of("1e400", "-1e400", "1e1000000000")) {
      RawHttp.Answer answer = rawJson("POST", "/v1/nodes/user", "{\"data\": {\"name\": \"n\", \"score\": " + huge + "}}");
      assertRefused(answer, 400, "invalid_request");
      assertThat(answer.message()).contains("data.score");
    }
    assertThat(api.nodeRows("user")).isEqualTo(before);
  }

  @Test
  void aBodySentAsAnythingButJson_gets415_andChangesNothing() throws Exception {
    String node = user("typed");
    String path = "/v1/nodes/" + node;
    byte[] multipart = ("--b\r\nContent-Disposition: form-data; name=\"data\"\r\n\r\n{\"bio\": \"m\"}\r\n--b--\r\n")
        .getBytes(StandardCharsets.UTF_8);
    assertRefused(rawBody("PATCH", path, "multipart/form-data; boundary=b", multipart), 415, "unsupported_media_type");
    assertRefused(rawBody("PATCH", path, "application/x-www-form-urlencoded",
        "{\"data\": {\"bio\": \"100%\"}}".getBytes(StandardCharsets.UTF_8)), 415, "unsupported_media_type");
    assertRefused(rawBody("PATCH", path, "application/x-www-form-urlencoded",
        ("{\"data\": {\"bio\": \"" + "x".repeat(9000) + "\"}}").getBytes(StandardCharsets.UTF_8)), 415,
        "unsupported_media_type");
    assertRefused(rawBody("PATCH", path, "application/json; charset=latin1",
        "{\"data\": {\"bio\": \"l\"}}".getBytes(StandardCharsets.UTF_8)), 415, "unsupported_media_type");

    assertThat(api.call(GET, path).body().get("version").asLong()).as("never written").isEqualTo(1);
    assertThat(rawBody("PATCH", path, "application/json; charset=UTF-8",
        "{\"data\": {\"bio\": \"j\"}}".getBytes(StandardCharsets.UTF_8)).status()).isEqualTo(200);
    assertThat(rawBody("PATCH", path, null, "{\"data\": {\"bio\": \"k\"}}".getBytes(StandardCharsets.UTF_8)).status())
        .as("no declared type: read as JSON").isEqualTo(200);
  }

  @Test
  void anythingAfterTheJsonDocument_isRefused_onWritesAndAdminCalls() throws Exception {
    long before = api.nodeRows("user");
    assertRefused(rawJson("POST", "/v1/nodes/user", "{\"data\": {\"name\": \"g\"}} garbage"), 400, "invalid_request");
    assertRefused(rawJson("POST", "/v1/nodes/user", "{\"data\": {\"name\": \"g\"}}{}"), 400, "invalid_request");
    assertThat(api.nodeRows("user")).isEqualTo(before);

    Map<String, String> admin = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
    assertThat(api.call(PUT, "/v1/schema/node-types/trailing", "{\"id\": 901} garbage", admin).status()).isEqualTo(400);
  }

  @Test
  void dataNestedDeeperThanMariaDbStores_is422NamingThePath_andTheDeepestItStoresIsAccepted() throws Exception {
    assertThat(api.call(POST, "/v1/nodes/user", nested(JsonBodies.MAX_DATA_DEPTH)).status())
        .as("the deepest data MariaDB stores").isEqualTo(201);
    long before = api.nodeRows("user");
    var answer = api.call(POST, "/v1/nodes/user", nested(JsonBodies.MAX_DATA_DEPTH + 1));
    assertThat(answer.status()).isEqualTo(422);
    assertThat(answer.body().get("error").get("details").get("fields").fieldNames().next()).startsWith("data.d.d");
    assertThat(api.nodeRows("user")).isEqualTo(before);
  }

  /** {@code data} nested {@code depth} objects deep, counting {@code data} itself. */
  private static String nested(int depth) {
    String inner = "{\"name\": \"deep\"}";
    for (int level = 1; level < depth; level++) {
      inner = "{\"name\": \"deep\", \"d\": " + inner + "}";
    }
    return "{\"data\": " + inner + "}";
  }

  // ---- what the HTTP codec refuses ----

  @Test
  void whatTheHttpCodecRefuses_stillGetsTheJsonErrorBody() {
    assertRefused(raw("GET", "/v1/nodes?ids=" + "1,".repeat(9000) + "1"), 414, "too_large");
    assertRefused(RawHttp.send(api.port(), "GET /health HTTP/1.1\r\nHost: localhost\r\nX-Big: " + "b".repeat(10_000)
        + "\r\n\r\n"), 431, "too_large");
    assertRefused(RawHttp.send(api.port(), "GET /health HTTP/1.1\r\nHost: localhost\r\nBad Name: x\r\n"
        + "Connection: close\r\n\r\n"), 400, "invalid_request");
    assertRefused(RawHttp.send(api.port(), "GET /health HTTP/9.9\r\nHost: localhost\r\n\r\n"), 505,
        "not_implemented");
    assertRefused(RawHttp.send(api.port(), "GET /health HTTP/2.0\r\nHost: localhost\r\n\r\n"), 505,
        "not_implemented");
  }

  @Test
  void aMalformedChunk_getsTheJsonErrorBody_andWritesNothing() throws Exception {
    long before = api.nodeRows("tag");
    RawHttp.Answer answer = RawHttp.send(api.port(), "POST /v1/nodes/tag HTTP/1.1\r\nHost: localhost\r\n"
        + "Content-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n"
        + "10\r\n{\"data\": {\"label\"\r\nzz\r\n: \"x\"}}\r\n0\r\n\r\n");

    assertRefused(answer, 400, "invalid_request");
    assertThat(answer.body()).contains("chunked body is malformed");
    assertThat(api.nodeRows("tag")).isEqualTo(before);
  }

  // ---- getNodes at its documented size ----

  @Test
  void getNodes_takesItsDocumented500Ids_inTheUrl_orInABody() {
    String known = user("many");
    List<String> ids = new ArrayList<>();
    ids.add(known);
    for (int i = 1; i < 500; i++) {
      ids.add(NodeId.of(i % TestBackend.SHARDS, 1, NodeId.MAX_LOCAL - i).toString());
    }
    var inUrl = api.call(GET, "/v1/nodes?ids=" + String.join(",", ids));
    assertThat(inUrl.status()).isEqualTo(200);
    assertThat(inUrl.body().get("nodes")).hasSize(1);
    assertThat(inUrl.body().get("missing")).hasSize(499);

    var inBody = api.call(POST, "/v1/nodes:batchGet", "{\"ids\": [\"" + String.join("\", \"", ids) + "\"]}");
    assertThat(inBody.status()).isEqualTo(200);
    assertThat(inBody.body()).isEqualTo(inUrl.body());
    assertThat(api.call(POST, "/v1/nodes:batchGet", "{\"ids\": []}").status()).isEqualTo(400);
  }

  // ---- query strings ----

  @Test
  void queryStrings_haveNoSemicolonSeparators_andNoRepeatedOrUnknownParameters() {
    String node = user("queried");
    String edges = "/v1/nodes/" + node + "/edges/follows";
    assertRefused(raw("GET", edges + "?order=asc;DROP"), 400, "invalid_request");
    assertRefused(raw("GET", edges + "?limit=1&limit=2"), 400, "invalid_request");
    RawHttp.Answer unknown = raw("GET", edges + "?limt=5");
    assertRefused(unknown, 400, "invalid_request");
    assertThat(unknown.message()).contains("limt");
    assertRefused(raw("GET", "/v1/nodes/" + node + "?fields=all"), 400, "invalid_request");
    assertThat(raw("GET", edges + "?order=asc&limit=2").status()).isEqualTo(200);
  }

  // ---- IDs ----

  @Test
  void idsThisClusterCouldNotHaveIssued_areRefusedWhereverTheyAppear() throws Exception {
    String board = api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"t\"}}").id();
    String outsideTheMap = NodeId.of(TestBackend.SHARDS + 5, 3, 1).toString();
    long before = api.edgeRows("board_has_pins");

    assertThat(api.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + outsideTheMap, null).status())
        .as("a TO ID on no shard").isEqualTo(400);
    assertThat(api.edgeRows("board_has_pins")).isEqualTo(before);
    for (String colocate : List.of("0", "-0", "\"0\"", "\"" + NodeId.of(0, 1023, 1) + "\"",
        "\"" + NodeId.of(0, 3, 0) + "\"")) {
      assertThat(api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}, \"colocateWith\": " + colocate + "}")
          .status()).as("colocateWith " + colocate).isEqualTo(400);
    }
    assertThat(api.call(GET, "/v1/nodes/" + outsideTheMap).status()).isEqualTo(400);
    assertThat(api.call(GET, "/v1/nodes?ids=" + outsideTheMap).status()).isEqualTo(400);
  }

  @Test
  void aDropOfRetiredShards_withAGraceThatIsNullNegativeOrPastAnyTimestamp_isA400OrTheDefault() {
    Map<String, String> admin = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
    for (String grace : List.of("-1", "9223372036854775807", "2562047788015215", "876001", "\"24\"", "1.5")) {
      ApiClient.Answer refused = api.call(POST, "/v1/admin/shards/retired/drop", "{\"graceHours\": " + grace + "}", admin);
      assertThat(refused.status()).as("graceHours " + grace + ": " + refused.text()).isEqualTo(400);
      assertThat(refused.body().path("error").path("code").asText()).isEqualTo("invalid_request");
    }
    for (String grace : List.of("null", "876000")) {
      ApiClient.Answer kept = api.call(POST, "/v1/admin/shards/retired/drop", "{\"graceHours\": " + grace + "}", admin);
      assertThat(kept.status()).as("graceHours " + grace + ": " + kept.text()).isEqualTo(200);
      assertThat(kept.body().get("dropped")).as("nothing is old enough").isEmpty();
    }
  }

  // ---- messages ----

  @Test
  void noAnswer_carriesTheParsersInternals() {
    List<String> bodies = List.of("{\"data\": " + "[".repeat(2000) + "]".repeat(2000) + "}", "{\"data\": NaN}",
        "{\"data\": {\"a\": 1,}}", "{'data': {}}", "{\"data\": {\"a\": \"unterminated}}");
    for (String body : bodies) {
      RawHttp.Answer answer = rawJson("POST", "/v1/nodes/user", body);
      assertRefused(answer, 400, "invalid_request");
      assertThat(answer.message()).doesNotContain("StreamReadConstraints", "JsonReadFeature", "[Source", "REDACTED",
          "com.fasterxml");
    }
  }

  @Test
  void theBearerScheme_isMatchedWhateverItsCase() {
    for (String scheme : List.of("bearer", "BEARER", "Bearer")) {
      assertThat(api.call(GET, "/v1/admin/shard-map", null, Map.of("Authorization", scheme + " " + TestBackend.ADMIN_TOKEN))
          .status()).as(scheme).isEqualTo(200);
    }
  }

  // ---- slow clients ----

  @Test
  void slowClients_areCutOff_silentOnesAtTheIdleTimeout_andTricklersOfANextRequestAtTheHeaderTimeout()
      throws Exception {
    Duration header = Duration.ofMillis(600);
    Duration idle = Duration.ofSeconds(1);
    try (ApiFixture slow = new ApiFixture(new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES,
        QuiverConfig.DEFAULT_REQUEST_TIMEOUT).withTimeouts(header, idle))) {
      List<Socket> silent = new ArrayList<>();
      List<Socket> tricklers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Socket quiet = new Socket("127.0.0.1", slow.port());
        quiet.getOutputStream().write("GET /health HTTP/1.1\r\nHost: l".getBytes(StandardCharsets.US_ASCII));
        silent.add(quiet);
        Socket trickler = new Socket("127.0.0.1", slow.port());
        trickler.getOutputStream().write(("GET /health HTTP/1.1\r\nHost: l\r\n\r\nGET /health HTTP/1.1\r\nHost: l")
            .getBytes(StandardCharsets.US_ASCII));
        tricklers.add(trickler);
      }
      long started = System.nanoTime();
      int open = silent.size() + tricklers.size();
      while (open > 0 && System.nanoTime() - started < Duration.ofSeconds(6).toNanos()) {
        Thread.sleep(100);
        open = 0;
        for (Socket socket : silent) {
          open += stillOpen(socket, false) ? 1 : 0;
        }
        for (Socket socket : tricklers) {
          open += stillOpen(socket, true) ? 1 : 0;
        }
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      System.out.printf("20 slow connections closed after %d ms (header timeout %d ms, idle %d ms)%n", took.toMillis(),
          header.toMillis(), idle.toMillis());
      assertThat(open).as("connections still held").isZero();
      assertThat(took).isLessThan(Duration.ofSeconds(4));
      for (Socket socket : silent) {
        socket.close();
      }
      for (Socket socket : tricklers) {
        socket.close();
      }
    }
  }

  @Test
  void aFirstRequestTrickledIn_isClosedAtTheHeaderTimeout_longBeforeTheIdleTimeout() throws Exception {
    Duration header = Duration.ofMillis(600);
    Duration idle = Duration.ofSeconds(20);
    try (ApiFixture slow = new ApiFixture(new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES,
        QuiverConfig.DEFAULT_REQUEST_TIMEOUT).withTimeouts(header, idle))) {
      List<Socket> tricklers = new ArrayList<>();
      for (int i = 0; i < 10; i++) {
        Socket first = new Socket("127.0.0.1", slow.port());
        first.getOutputStream().write("GET /health HTTP/1.1\r\nHost: l".getBytes(StandardCharsets.US_ASCII));
        tricklers.add(first);
      }
      long started = System.nanoTime();
      int open = tricklers.size();
      while (open > 0 && System.nanoTime() - started < Duration.ofSeconds(8).toNanos()) {
        Thread.sleep(100);
        open = 0;
        for (Socket socket : tricklers) {
          open += stillOpen(socket, true) ? 1 : 0;
        }
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      System.out.printf("10 first-request tricklers closed after %d ms (header timeout %d ms, idle %d s)%n",
          took.toMillis(), header.toMillis(), idle.toSeconds());
      assertThat(open).as("connections still held").isZero();
      assertThat(took).isLessThan(Duration.ofSeconds(4));
      for (Socket socket : tricklers) {
        socket.close();
      }
    }
  }

  /**
   * Trickles one more header byte (or stays silent); answers whether the server still holds the
   * connection. What it answered to a first request is read past.
   */
  private static boolean stillOpen(Socket socket, boolean trickle) {
    try {
      if (trickle) {
        OutputStream out = socket.getOutputStream();
        out.write('o');
        out.flush();
      }
      socket.setSoTimeout(10);
      InputStream in = socket.getInputStream();
      try {
        byte[] buffer = new byte[4096];
        int read;
        do {
          read = in.read(buffer);
        } while (read > 0);
        return read != -1;
      } catch (java.net.SocketTimeoutException nothingYet) {
        return true;
      }
    } catch (SocketException closed) {
      return false;
    } catch (java.io.IOException closed) {
      return false;
    }
  }
}
