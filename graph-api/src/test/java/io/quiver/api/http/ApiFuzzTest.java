package io.quiver.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiFixture;
import io.quiver.api.testing.RawHttp;
import io.quiver.store.NodeId;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;
import net.jqwik.api.lifecycle.AfterContainer;
import net.jqwik.api.lifecycle.BeforeContainer;

/**
 * The API under generated and mutated requests, on a real server over real hosts: the calls of the
 * OpenAPI document with valid arguments, and the same calls broken in the ways hostile clients
 * break them — bodies, encodings, IDs, parameters, headers. After each: no 5xx but a documented
 * 503, and a JSON error body on every non-2xx. At the end: the stored edges equal a model of the
 * edge writes the server accepted, forward and inverse copies are equal, and every count equals
 * its rows. {@code junit-platform.properties} sets the tries; {@code -Djqwik.tries.default=N} runs
 * longer.
 */
class ApiFuzzTest {
  private static ApiFixture api;
  private static final List<String> boards = new ArrayList<>();
  private static final List<String> pins = new ArrayList<>();
  /** The board_has_pins edges the server acknowledged as present, by (board, pin). */
  private static final Set<List<String>> model = new HashSet<>();
  private static final Map<Integer, Integer> statuses = new HashMap<>();

  @BeforeContainer
  static void start() throws Exception {
    api = new ApiFixture();
    for (int i = 0; i < 4; i++) {
      boards.add(api.call(io.vertx.core.http.HttpMethod.POST, "/v1/nodes/board",
          "{\"data\": {\"title\": \"fuzz " + i + "\"}}").id());
    }
    for (int i = 0; i < 6; i++) {
      pins.add(api.call(io.vertx.core.http.HttpMethod.POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l" + i + "\"}}")
          .id());
    }
  }

  @AfterContainer
  static void stop() throws Exception {
    try {
      ShardTables tables = new ShardTables(TestBackend.get());
      tables.awaitOutboxesDrained(Duration.ofSeconds(30));
      Set<List<String>> stored = new HashSet<>();
      tables.edges("board_has_pins").forEach((key, row) -> {
        if (row.active() && boards.contains(Long.toString(key.from()))) {
          stored.add(List.of(Long.toString(key.from()), Long.toString(key.to())));
        }
      });
      assertThat(stored).as("the stored edges are the ones the server acknowledged").isEqualTo(model);
      assertThat(tables.edges("pin_owned_by_board")).as("every inverse equals its forward copy")
          .isEqualTo(tables.mirrored("board_has_pins"));
      tables.countsAgainstRows("board_has_pins").forEach((from, countAndRows) ->
          assertThat(countAndRows[0]).as("count of %s", from).isEqualTo(countAndRows[1]));
      System.out.println("fuzz answers by status: " + statuses);
    } finally {
      api.close();
    }
  }

  /** One call of the API: method, path with query, declared type, body; and the edge it writes, if any. */
  record Call(String method, String target, String contentType, byte[] body, List<String> edge) {}

  @Property
  void everyAnswer_isAJsonErrorOrASuccess_andNoneIsAServerError(@ForAll("calls") Call call) {
    RawHttp.Answer answer = RawHttp.send(api.port(), request(call));
    statuses.merge(answer.status(), 1, Integer::sum);
    assertThat(answer.status()).as(describe(call) + " answered " + answer.head()).isBetween(200, 499);
    if (answer.status() >= 300) {
      assertThat(answer.isJsonError()).as(describe(call) + " answered without the error body: " + answer.body())
          .isTrue();
    }
    if (call.edge() != null && answer.status() < 300) {
      if (call.method().equals("PUT")) {
        model.add(call.edge());
      } else {
        model.remove(call.edge());
      }
    }
  }

  @Provide
  Arbitrary<Call> calls() {
    Arbitrary<Call> valid = Arbitraries.oneOf(addEdge(), removeEdge(), reads(), patchBoard());
    return Arbitraries.frequencyOf(
        net.jqwik.api.Tuple.of(1, valid),
        net.jqwik.api.Tuple.of(1, Combinators.combine(valid, mutation()).as((call, mutate) -> mutate.apply(call))));
  }

  private Arbitrary<Call> addEdge() {
    return Combinators.combine(Arbitraries.of(boards), Arbitraries.of(pins), Arbitraries.of("", "{}",
            "{\"sequence\": 5}", "{\"data\": {}}"), Arbitraries.of("", "?waitForInverse=true"))
        .as((board, pin, body, query) -> new Call("PUT", edgePath(board, pin) + query, "application/json",
            body.getBytes(StandardCharsets.UTF_8), List.of(board, pin)));
  }

  private Arbitrary<Call> removeEdge() {
    return Combinators.combine(Arbitraries.of(boards), Arbitraries.of(pins))
        .as((board, pin) -> new Call("DELETE", edgePath(board, pin), null, new byte[0], List.of(board, pin)));
  }

  private Arbitrary<Call> reads() {
    return Combinators.combine(Arbitraries.of(boards), Arbitraries.of("/edges/board_has_pins?limit=2",
            "/edges/board_has_pins?hydrate=true&order=asc", "/edges/board_has_pins/count", ""))
        .as((board, rest) -> new Call("GET", "/v1/nodes/" + board + rest, null, new byte[0], null));
  }

  private Arbitrary<Call> patchBoard() {
    return Combinators.combine(Arbitraries.of(boards), Arbitraries.strings().ofMaxLength(12))
        .as((board, text) -> new Call("PATCH", "/v1/nodes/" + board, "application/json",
            ("{\"data\": {\"description\": " + ApiJson.MAPPER.valueToTree(text) + "}}").getBytes(StandardCharsets.UTF_8),
            null));
  }

  private static String edgePath(String board, String pin) {
    return "/v1/nodes/" + board + "/edges/board_has_pins/" + pin;
  }

  /** Ways to break a call; each must be refused with a 4xx, or (for the harmless ones) served. */
  private interface Mutation {
    Call apply(Call call);
  }

  private Arbitrary<Mutation> mutation() {
    List<Mutation> all = List.of(
        call -> refused(call, call.target().replaceFirst("/v1/nodes/", "/v1/nodes/%2e%2e/")),
        call -> refused(call, call.target().replaceFirst("/edges/", "/edges/%2F")),
        call -> refused(call, call.target().replaceFirst("/v1/nodes/", "/v1/nodes/%zz")),
        call -> refused(call, call.target() + (call.target().contains("?") ? "&" : "?") + "bogus=1"),
        call -> refused(call, call.target() + (call.target().contains("?") ? "&" : "?") + "a=1;b=2"),
        call -> refused(call, call.target().replaceFirst("/v1/nodes/\\d+", "/v1/nodes/" + NodeId.of(999, 3, 1))),
        call -> refused(call, call.target().replaceFirst("/v1/nodes/\\d+", "/v1/nodes/7")),
        call -> withBody(call, "text/plain", "{}"),
        call -> withBody(call, "application/json", "{\"data\": {\"x\": \"\\ud800\"}}"),
        call -> withBody(call, "application/json", "{\"data\": {\"x\": 1e400}}"),
        call -> withBody(call, "application/json", "{\"data\": {}} trailing"),
        call -> withBody(call, "application/json", "{\"data\": " + "[".repeat(40) + "]".repeat(40) + "}"),
        call -> withBytes(call, new byte[] {'{', '"', (byte) 0xC0, (byte) 0xAF, '"', ':', '1', '}'}),
        call -> withBody(call, "application/json", "{\"sequence\": \"nine\"}"),
        call -> withBody(call, "application/json", "[1, 2]"));
    return Arbitraries.of(all);
  }

  /** The call with a path or query that must be refused: it can write nothing. */
  private static Call refused(Call call, String target) {
    return new Call(call.method(), target, call.contentType(), call.body(), null);
  }

  private static Call withBody(Call call, String type, String body) {
    return withBytes(new Call(call.method(), call.target(), type, call.body(), call.edge()),
        body.getBytes(StandardCharsets.UTF_8));
  }

  /** The call with a body that must be refused, where the call takes one; a GET keeps none. */
  private static Call withBytes(Call call, byte[] body) {
    if (call.method().equals("GET") || call.method().equals("DELETE")) {
      return call;
    }
    return new Call(call.method(), call.target(), call.contentType() == null ? "application/json" : call.contentType(),
        body, null);
  }

  private static byte[] request(Call call) {
    return RawHttp.request(call.method(), call.target(), call.contentType(), call.body());
  }

  private static String describe(Call call) {
    return call.method() + " " + call.target() + " " + new String(call.body(), StandardCharsets.UTF_8);
  }
}
