package io.quiver.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.FileNotFoundException;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest.BodyPublishers;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse.BodyHandlers;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.stream.Collectors;
import java.util.stream.Stream;

/**
 * Quiver's graph operations from Java. Every operation comes twice: {@code fooAsync(…)} answers
 * a {@link CompletableFuture} that fails with a {@link QuiverException}; {@code foo(…)} blocks and
 * throws it. Node data may be any value Jackson can write as a JSON object (a {@code Map}, a
 * record, an {@code ObjectNode}). Thread-safe; create one per application and share it.
 *
 * <pre>{@code
 * try (QuiverClient quiver = QuiverClient.create(URI.create("http://localhost:8080"))) {
 *   Node board = quiver.createNode("board", Map.of("title", "Recipes"));
 *   Node pin = quiver.createNode("pin", Map.of("link", "https://example.com"), board.id());
 *   quiver.addEdge(board.id(), "board_has_pins", pin.id());
 *   EdgePage page = quiver.getEdges(board.id(), "board_has_pins", EdgeQuery.newestFirst().limit(20));
 * }
 * }</pre>
 */
public final class QuiverClient implements AutoCloseable {
  /** Pass to update or replace whatever version is stored. */
  public static final long ANY_VERSION = -1;
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(10);

  /** The request header by which a read tolerates bounded staleness ({@link #staleTolerant()}). */
  public static final String CONSISTENCY_HEADER = "Quiver-Consistency";
  private final URI base;
  private final HttpClient http;
  private final Duration timeout;
  /** Whether every call carries {@code Quiver-Consistency: bounded-staleness}. */
  private final boolean staleTolerant;
  /** The read token every call carries and every answer updates; null outside a session. */
  private final SessionToken session;
  /** The request header and answer header of read tokens ({@link #session()}). */
  public static final String TOKEN_HEADER = "Quiver-Token";

  private QuiverClient(URI base, Duration timeout) {
    this(base, timeout, HttpClient.newBuilder().connectTimeout(timeout).version(HttpClient.Version.HTTP_1_1).build(),
        false, null);
  }

  private QuiverClient(URI base, Duration timeout, HttpClient http, boolean staleTolerant, SessionToken session) {
    this.base = base;
    this.timeout = timeout;
    this.http = http;
    this.staleTolerant = staleTolerant;
    this.session = session;
  }

  /**
   * A session over this client: read-your-writes, across servers and inverse lists. Every write's
   * answer carries a read token ({@code Quiver-Token}) and the session keeps it, merged; every read
   * carries it, and the server answers it only once every write of the session is visible — its
   * inverse copies and counts included, on any server — reading the primaries rather than a cache,
   * or 503 if a write's inverse cannot be applied within a second. Reads of a session cost what an
   * uncached read costs; use one where a user must see what they just did, and the plain client
   * elsewhere. It shares this client's connections; one session per user session, not per client.
   */
  public QuiverClient session() {
    return new QuiverClient(base, timeout, http, staleTolerant, new SessionToken());
  }

  /**
   * A session that starts from {@code token} (a {@code Quiver-Token} another process was answered):
   * its reads observe every write that token covers.
   */
  public QuiverClient session(String token) {
    SessionToken carried = new SessionToken();
    carried.answered(token);
    return new QuiverClient(base, timeout, http, staleTolerant, carried);
  }

  /** The read token this session carries (null before its first write, and outside a session): hand it on. */
  public String token() {
    return session == null ? null : session.get();
  }

  /**
   * This client with its reads tolerating bounded staleness ({@code Quiver-Consistency:
   * bounded-staleness}): the server may answer them from a replica within its lag bound (1 s by
   * default) — when the shard's primary is down, or has not answered within the hedge delay.
   * Writes are unchanged. It shares this client's connections.
   */
  public QuiverClient staleTolerant() {
    return staleTolerant ? this : new QuiverClient(base, timeout, http, true, session);
  }

  public static QuiverClient create(URI baseUrl) {
    return create(baseUrl, DEFAULT_TIMEOUT);
  }

  /** @param timeout how long each call may take */
  public static QuiverClient create(URI baseUrl, Duration timeout) {
    String text = baseUrl.toString();
    return new QuiverClient(URI.create(text.endsWith("/") ? text.substring(0, text.length() - 1) : text), timeout);
  }

  // ---- nodes ----

  public CompletableFuture<Node> createNodeAsync(String type, Object data, Long colocateWith) {
    ObjectNode body = MAPPER.createObjectNode();
    body.set("data", MAPPER.valueToTree(data));
    if (colocateWith != null) {
      body.put("colocateWith", Long.toString(colocateWith));
    }
    return call("POST", "/v1/nodes/" + type, body, null).thenApply(QuiverClient::node);
  }

  public Node createNode(String type, Object data) {
    return join(createNodeAsync(type, data, null));
  }

  /** Creates the node on the shard of {@code colocateWith}, so that it can be read with it cheaply. */
  public Node createNode(String type, Object data, long colocateWith) {
    return join(createNodeAsync(type, data, colocateWith));
  }

  public CompletableFuture<Node> getNodeAsync(long id) {
    return call("GET", "/v1/nodes/" + id, null, null).thenApply(QuiverClient::node);
  }

  public Node getNode(long id) {
    return join(getNodeAsync(id));
  }

  /**
   * The node whose unique {@code field} holds {@code value} (an integer field's value in decimal
   * digits); fails {@code not_found} when no node holds it. The value travels as a query
   * parameter, so any value works, slashes included.
   */
  public CompletableFuture<Node> getNodeByAsync(String type, String field, String value) {
    return call("GET", "/v1/nodes/" + type + "/by/" + field + "?value=" + URLEncoder.encode(value, StandardCharsets.UTF_8),
        null, null).thenApply(QuiverClient::node);
  }

  public Node getNodeBy(String type, String field, String value) {
    return join(getNodeByAsync(type, field, value));
  }

  public CompletableFuture<NodeBatch> getNodesAsync(List<Long> ids) {
    String list = ids.stream().map(String::valueOf).collect(Collectors.joining(","));
    return call("GET", "/v1/nodes?ids=" + list, null, null).thenApply(json ->
        new NodeBatch(list(json.get("nodes"), QuiverClient::node), ids(json.get("missing"))));
  }

  public NodeBatch getNodes(List<Long> ids) {
    return join(getNodesAsync(ids));
  }

  /** Applies a JSON merge patch; {@code expectedVersion} may be {@link #ANY_VERSION}. */
  public CompletableFuture<Node> updateNodeAsync(long id, Object patch, long expectedVersion) {
    return call("PATCH", "/v1/nodes/" + id, dataBody(patch), expectedVersion).thenApply(QuiverClient::node);
  }

  public Node updateNode(long id, Object patch) {
    return join(updateNodeAsync(id, patch, ANY_VERSION));
  }

  public Node updateNode(long id, Object patch, long expectedVersion) {
    return join(updateNodeAsync(id, patch, expectedVersion));
  }

  public CompletableFuture<Node> replaceNodeAsync(long id, Object data, long expectedVersion) {
    return call("PUT", "/v1/nodes/" + id, dataBody(data), expectedVersion).thenApply(QuiverClient::node);
  }

  public Node replaceNode(long id, Object data, long expectedVersion) {
    return join(replaceNodeAsync(id, data, expectedVersion));
  }

  /**
   * Applies a JSON merge patch only if the node's data holds {@code expected}'s fields' values (a
   * compare-and-set: {@code {"data": patch, "if": expected}}; a field's default counts, JSON null
   * asks for an absent or null field). A {@link QuiverException} 409 {@code version_conflict} when
   * it does not, with the node's data as it is in {@code details.current}; nothing is written.
   */
  public CompletableFuture<Node> updateNodeIfAsync(long id, Object patch, Object expected) {
    ObjectNode body = dataBody(patch);
    body.set("if", MAPPER.valueToTree(expected));
    return call("PATCH", "/v1/nodes/" + id, body, null).thenApply(QuiverClient::node);
  }

  public Node updateNodeIf(long id, Object patch, Object expected) {
    return join(updateNodeIfAsync(id, patch, expected));
  }

  /** Deletes a node; with {@code cascade}, its edges are removed too, asynchronously. */
  public CompletableFuture<Void> deleteNodeAsync(long id, boolean cascade) {
    return call("DELETE", "/v1/nodes/" + id + (cascade ? "?cascade=true" : ""), null, null).thenApply(json -> null);
  }

  public void deleteNode(long id) {
    join(deleteNodeAsync(id, false));
  }

  public void deleteNode(long id, boolean cascade) {
    join(deleteNodeAsync(id, cascade));
  }

  // ---- edges ----

  /** Adds or updates an edge; a null sequence or data keeps an existing edge's. */
  public CompletableFuture<Edge> addEdgeAsync(long from, String type, long to, Long sequence, Object data) {
    return addEdgeAsync(from, type, to, sequence, data, false);
  }

  /** Adds the edge archived when {@code archived} (a hidden link: kept, out of lists and counts). */
  public CompletableFuture<Edge> addEdgeAsync(long from, String type, long to, Long sequence, Object data,
      boolean archived) {
    return call("PUT", edgePath(from, type, to), edgeBody(sequence, data, archived), null)
        .thenApply(QuiverClient::edge);
  }

  private static ObjectNode edgeBody(Long sequence, Object data, boolean archived) {
    ObjectNode body = MAPPER.createObjectNode();
    if (archived) {
      body.put("state", "archived");
    }
    if (sequence != null) {
      body.put("sequence", sequence);
    }
    if (data != null) {
      body.set("data", MAPPER.valueToTree(data));
    }
    return body;
  }

  public Edge addEdge(long from, String type, long to) {
    return join(addEdgeAsync(from, type, to, null, null));
  }

  /**
   * Adds the edge only if there is none ({@code If-None-Match: *}): of two clients racing to add it,
   * one adds it and the other is answered a {@link QuiverException} 409 {@code version_conflict}
   * with the edge as it is in {@code details.current}.
   */
  public Edge addEdgeIfAbsent(long from, String type, long to, Long sequence, Object data) {
    return join(callWith("PUT", edgePath(from, type, to), edgeBody(sequence, data, false),
        Map.of("If-None-Match", "*")).thenApply(QuiverClient::edge));
  }

  /**
   * Updates the edge only if it is there at {@code expectedSequence} ({@code If-Match}); a
   * {@link QuiverException} 409 {@code version_conflict}, with the edge as it is in {@code
   * details.current} (null when absent), otherwise.
   */
  public Edge updateEdgeIfAt(long from, String type, long to, long expectedSequence, Long sequence, Object data) {
    return join(callWith("PUT", edgePath(from, type, to), edgeBody(sequence, data, false),
        Map.of("If-Match", "\"" + expectedSequence + "\"")).thenApply(QuiverClient::edge));
  }

  public Edge addEdge(long from, String type, long to, Long sequence, Object data, boolean archived) {
    return join(addEdgeAsync(from, type, to, sequence, data, archived));
  }

  public Edge addEdge(long from, String type, long to, Long sequence, Object data) {
    return join(addEdgeAsync(from, type, to, sequence, data));
  }

  public CompletableFuture<Edge> getEdgeAsync(long from, String type, long to) {
    return call("GET", edgePath(from, type, to), null, null).thenApply(QuiverClient::edge);
  }

  public Edge getEdge(long from, String type, long to) {
    return join(getEdgeAsync(from, type, to));
  }

  /** Archives an edge: out of lists and counts on both copies, its row, sequence and data kept. */
  public CompletableFuture<Edge> archiveEdgeAsync(long from, String type, long to) {
    return call("POST", edgePath(from, type, to) + "/archive", null, null).thenApply(QuiverClient::edge);
  }

  public Edge archiveEdge(long from, String type, long to) {
    return join(archiveEdgeAsync(from, type, to));
  }

  /** Restores an archived edge whole, with its sequence and data. */
  public CompletableFuture<Edge> restoreEdgeAsync(long from, String type, long to) {
    return call("POST", edgePath(from, type, to) + "/restore", null, null).thenApply(QuiverClient::edge);
  }

  public Edge restoreEdge(long from, String type, long to) {
    return join(restoreEdgeAsync(from, type, to));
  }

  /** Archives every edge of a node, both directions, in the background (an account suspended). */
  public CompletableFuture<Void> archiveEdgesOfAsync(long node) {
    return call("POST", "/v1/nodes/" + node + "/archive-edges", null, null).thenApply(json -> null);
  }

  public void archiveEdgesOf(long node) {
    join(archiveEdgesOfAsync(node));
  }

  /** Restores every archived edge of a node, both directions, in the background. */
  public CompletableFuture<Void> restoreEdgesOfAsync(long node) {
    return call("POST", "/v1/nodes/" + node + "/restore-edges", null, null).thenApply(json -> null);
  }

  public void restoreEdgesOf(long node) {
    join(restoreEdgesOfAsync(node));
  }

  public CompletableFuture<Void> removeEdgeAsync(long from, String type, long to) {
    return call("DELETE", edgePath(from, type, to), null, null).thenApply(json -> null);
  }

  public void removeEdge(long from, String type, long to) {
    join(removeEdgeAsync(from, type, to));
  }

  public CompletableFuture<EdgePage> getEdgesAsync(long from, String type, EdgeQuery query) {
    return call("GET", "/v1/nodes/" + from + "/edges/" + type + query.queryString(), null, null)
        .thenApply(json -> new EdgePage(list(json.get("edges"), QuiverClient::edge),
            json.path("next").isTextual() ? json.get("next").asText() : null, ids(json.get("missing"))));
  }

  public EdgePage getEdges(long from, String type, EdgeQuery query) {
    return join(getEdgesAsync(from, type, query));
  }

  /**
   * The edges of a list that point at any of {@code to} (at most 500), newest first; targets
   * without an edge are left out.
   */
  public CompletableFuture<List<Edge>> getEdgesToAsync(long from, String type, List<Long> to) {
    return getEdgesToAsync(from, type, to, "active");
  }

  /** As {@link #getEdgesToAsync(long, String, List)}, of the edges in {@code state}: "active", "archived" or "all". */
  public CompletableFuture<List<Edge>> getEdgesToAsync(long from, String type, List<Long> to, String state) {
    String targets = to.stream().map(String::valueOf).collect(Collectors.joining(","));
    return call("GET", "/v1/nodes/" + from + "/edges/" + type + "?to=" + targets + "&state="
            + URLEncoder.encode(state, StandardCharsets.UTF_8), null, null)
        .thenApply(json -> list(json.get("edges"), QuiverClient::edge));
  }

  public List<Edge> getEdgesTo(long from, String type, List<Long> to) {
    return join(getEdgesToAsync(from, type, to));
  }

  public List<Edge> getEdgesTo(long from, String type, List<Long> to, String state) {
    return join(getEdgesToAsync(from, type, to, state));
  }

  /**
   * Single edges from any sources in one call (at most 500): each found, active or archived, and
   * the ones without an edge, in request order.
   */
  public CompletableFuture<EdgeBatch> getEdgesBatchAsync(List<EdgeKey> edges) {
    ObjectNode body = MAPPER.createObjectNode();
    var array = body.putArray("edges");
    edges.forEach(edge -> array.addObject().put("from", String.valueOf(edge.from())).put("type", edge.type())
        .put("to", String.valueOf(edge.to())));
    return call("POST", "/v1/edges:batchGet", body, null).thenApply(json -> new EdgeBatch(
        list(json.get("edges"), QuiverClient::edge),
        list(json.get("missing"), key -> new EdgeKey(key.get("from").asLong(), key.get("type").asText(),
            key.get("to").asLong()))));
  }

  public EdgeBatch getEdgesBatch(List<EdgeKey> edges) {
    return join(getEdgesBatchAsync(edges));
  }

  /**
   * A set operation over two to eight edge lists — {@code "intersection"}, {@code "union"} or
   * {@code "difference"} (the first list's targets none of the others hold) — as a page of target
   * IDs in ascending order; {@code after} is the previous page's {@link TargetPage#next()}, or null.
   */
  public CompletableFuture<TargetPage> combineListsAsync(String operation, List<EdgeList> lists, Long after,
      int limit) {
    ObjectNode body = listsQuery(operation, lists);
    body.put("limit", limit);
    if (after != null) {
      body.put("after", String.valueOf(after));
    }
    return call("POST", "/v1/edges/query", body, null).thenApply(json -> new TargetPage(ids(json.get("targets")),
        json.path("next").isTextual() ? json.get("next").asLong() : null));
  }

  public TargetPage combineLists(String operation, List<EdgeList> lists, Long after, int limit) {
    return join(combineListsAsync(operation, lists, after, limit));
  }

  /** How many targets a set operation over edge lists holds. */
  public CompletableFuture<Long> countCombinedAsync(String operation, List<EdgeList> lists) {
    ObjectNode body = listsQuery(operation, lists);
    body.put("count", true);
    return call("POST", "/v1/edges/query", body, null).thenApply(json -> json.get("count").asLong());
  }

  public long countCombined(String operation, List<EdgeList> lists) {
    return join(countCombinedAsync(operation, lists));
  }

  private static ObjectNode listsQuery(String operation, List<EdgeList> lists) {
    ObjectNode body = MAPPER.createObjectNode();
    body.put("operation", operation);
    var array = body.putArray("lists");
    lists.forEach(list -> array.addObject().put("from", String.valueOf(list.from())).put("type", list.type()));
    return body;
  }

  public CompletableFuture<Long> countEdgesAsync(long from, String type) {
    return call("GET", "/v1/nodes/" + from + "/edges/" + type + "/count", null, null)
        .thenApply(json -> json.get("count").asLong());
  }

  public long countEdges(long from, String type) {
    return join(countEdgesAsync(from, type));
  }

  // ---- plumbing ----

  private static String edgePath(long from, String type, long to) {
    return "/v1/nodes/" + from + "/edges/" + type + "/" + to;
  }

  private static ObjectNode dataBody(Object data) {
    ObjectNode body = MAPPER.createObjectNode();
    body.set("data", MAPPER.valueToTree(data));
    return body;
  }

  // ---- the change log ----

  /** A page of the change log: its events, and the cursor after them (the one given when there were none). */
  public record ChangePage(List<ChangeEvent> events, String cursor) {}

  /**
   * The changes after {@code after} ({@code null}: from the start of what the log keeps;
   * {@code "now"}: only what is logged from now on), at most {@code limit}, of {@code types} only
   * when not empty ({@code GET /v1/changes}). A cursor older than the log's retention is 410
   * {@code gone}, its message saying how far back the log reaches.
   */
  public ChangePage changes(String after, List<String> types, int limit) {
    JsonNode page = join(call("GET", changesPath(after, types, limit, false), null, null));
    List<ChangeEvent> events = new ArrayList<>();
    page.path("events").forEach(event -> events.add(ChangeEvent.of(event)));
    return new ChangePage(events, page.path("cursor").asText());
  }

  /**
   * Follows the change log from {@code after} ({@code null}: the start of what it keeps; {@code
   * "now"}: from now on): the events as they are logged, for as long as the stream is read, over one
   * response ({@code follow=true}). The stream blocks for the next event; close it to stop. Each
   * event's cursor is where to resume after a crash. After 5 s without a change the stream yields a
   * heartbeat ({@link ChangeEvent#heartbeat()}): the server is there, and its cursor is where the
   * consumer stands — a consumer that must not block for ever checks its own condition then. Refused before the first event (a bad cursor,
   * one past retention) with a {@link QuiverException}; a stream the server ends with an error
   * throws one from the stream.
   */
  public Stream<ChangeEvent> follow(String after, List<String> types) {
    return followLines(changesPath(after, types, 100, true));
  }

  /**
   * Follows the change log as {@code member} of the consumer group {@code group}
   * ({@code follow=true&group=…&member=…}): the group deals its shards among the members following,
   * and this stream yields the events of this member's share. When the deal changes (a member came
   * or went), the stream first yields an {@link ChangeEvent#assigned()} event with the new shards
   * and the cursor over them, then their events — from where the group's commits left each shard.
   * Commit as you process ({@link #commit}); what was processed after the last commit is read again
   * by the shard's next owner (at least once). {@code after} ({@code null}: the start of what the log
   * keeps; {@code "now"}; a cursor) is where a shard the group never committed is read from. The
   * stream ends with a {@link QuiverException} when the membership ends (another consumer joined
   * under the same name, or the server lost ZooKeeper): follow again to rejoin.
   */
  public Stream<ChangeEvent> followGroup(String group, String member, String after, List<String> types) {
    return followLines(changesPath(after, types, 100, true) + "&group=" + URLEncoder.encode(group, StandardCharsets.UTF_8)
        + "&member=" + URLEncoder.encode(member, StandardCharsets.UTF_8));
  }

  /**
   * What a consumer group's commit did ({@link #commit}).
   *
   * @param committed the group's positions after it, as a cursor
   * @param shards the shards whose positions it gave (those the member owns)
   * @param ignored the cursor's other shards, left as they were
   */
  public record GroupCommit(String committed, List<Integer> shards, List<Integer> ignored) {}

  /**
   * Commits {@code member}'s progress in {@code group}: the positions of {@code cursor} (the cursor
   * of the last event it processed) on the shards it owns now; a position never moves back ({@code
   * POST /v1/changes/groups/{group}/commit}). A {@link QuiverException} 404 when the member is no
   * longer in the group (its follow ended): its shards are others' now.
   */
  public GroupCommit commit(String group, String member, String cursor) {
    ObjectNode body = MAPPER.createObjectNode().put("member", member).put("cursor", cursor);
    JsonNode answer = join(call("POST", "/v1/changes/groups/" + URLEncoder.encode(group, StandardCharsets.UTF_8)
        + "/commit", body, null));
    List<Integer> shards = new ArrayList<>();
    answer.path("shards").forEach(shard -> shards.add(shard.asInt()));
    List<Integer> ignored = new ArrayList<>();
    answer.path("ignored").forEach(shard -> ignored.add(shard.asInt()));
    return new GroupCommit(answer.path("committed").asText(), List.copyOf(shards), List.copyOf(ignored));
  }

  private Stream<ChangeEvent> followLines(String path) {
    HttpRequest request = HttpRequest.newBuilder(URI.create(base + path))
        .header("Accept", "application/x-ndjson").GET().build();
    HttpResponse<Stream<String>> response = lines(request);
    Stream<String> lines = response.body();
    if (response.statusCode() != 200) {
      String body;
      try (lines) {
        body = lines.collect(Collectors.joining("\n"));
      }
      JsonNode error = parseLine(response.statusCode(), body).path("error");
      throw new QuiverException(response.statusCode(), error.path("code").asText("internal"),
          error.path("message").asText("HTTP " + response.statusCode()), error.path("details"), null);
    }
    return lines.map(text -> parseLine(200, text))
        .peek(line -> {
          if (line.has("error")) {
            throw new QuiverException(200, line.path("code").asText("internal"), line.path("error").asText(),
                line.path("details"), null);
          }
        })
        .map(ChangeEvent::of);
  }

  /** Sends {@code request} and answers its body as lines, read as they come; blocks until the head arrives. */
  private HttpResponse<Stream<String>> lines(HttpRequest request) {
    try {
      return http.send(request, BodyHandlers.ofLines());
    } catch (IOException e) {
      throw new QuiverException(0, "unavailable", "could not reach Quiver at " + base + ": " + e, null, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new QuiverException(0, "unavailable", "interrupted", null, e);
    }
  }

  private static String changesPath(String after, List<String> types, int limit, boolean follow) {
    StringBuilder path = new StringBuilder("/v1/changes?limit=").append(limit);
    if (after != null) {
      path.append("&after=").append(URLEncoder.encode(after, StandardCharsets.UTF_8));
    }
    if (!types.isEmpty()) {
      path.append("&types=").append(URLEncoder.encode(String.join(",", types), StandardCharsets.UTF_8));
    }
    return follow ? path.append("&follow=true").toString() : path.toString();
  }

  // ---- atomic multi-reads ----

  /** A list a multi-read asks for: its newest {@code limit} edges (1 to 100), with its count. */
  public record ListRead(long from, String type, int limit) {}

  /** A list as a multi-read answers it: its newest edges, count and version, read together. */
  public record ListAnswer(long from, String type, List<Edge> edges, long count, long version) {}

  /**
   * What a multi-read answered: the nodes in request order (null for one that does not exist), the
   * lists in request order, and how many rounds it took.
   */
  public record AtomicRead(List<Node> nodes, List<ListAnswer> lists, int rounds) {}

  /**
   * Reads nodes and edge lists atomically ({@code POST /v1/read}): the answer never shows part of
   * one write — an edge's two copies and each list's count are seen together or not at all, a node
   * whole. Up to 200 items; from the primaries.
   */
  public AtomicRead readAtomically(List<Long> nodes, List<ListRead> lists) {
    ObjectNode body = MAPPER.createObjectNode();
    if (!nodes.isEmpty()) {
      nodes.forEach(body.putArray("nodes")::add);
    }
    if (!lists.isEmpty()) {
      var array = body.putArray("lists");
      lists.forEach(list -> array.addObject().put("from", Long.toString(list.from())).put("type", list.type())
          .put("limit", list.limit()));
    }
    JsonNode answer = join(call("POST", "/v1/read", body, null));
    List<Node> read = new ArrayList<>();
    answer.path("nodes").forEach(node -> read.add(node.isNull() ? null : node(node)));
    List<ListAnswer> answered = new ArrayList<>();
    answer.path("lists").forEach(list -> {
      List<Edge> edges = new ArrayList<>();
      list.path("edges").forEach(edge -> edges.add(edge(edge)));
      answered.add(new ListAnswer(list.path("from").asLong(), list.path("type").asText(), List.copyOf(edges),
          list.path("count").asLong(), list.path("version").asLong()));
    });
    return new AtomicRead(java.util.Collections.unmodifiableList(read), List.copyOf(answered),
        answer.path("rounds").asInt());
  }

  // ---- bulk import ----

  /**
   * Imports an NDJSON file ({@code POST /v1/bulk}) under {@code name}, streaming it both ways, and
   * answers the final report; {@code progress} is told the figures after each batch. A rerun under
   * the same name creates nothing twice, so after a failure, run it again. Refused lines are in the
   * report, not thrown; a failure of the request (refused before it started, or the fleet failing
   * midway — what was written stays) is thrown as a {@link QuiverException}. Blocks; no timeout
   * beyond the connection's, since an import takes as long as it takes.
   */
  public ImportReport bulkImport(String name, Path ndjson, Consumer<ImportReport> progress) {
    HttpRequest request;
    try {
      request = HttpRequest.newBuilder(URI.create(base + "/v1/bulk?name=" + URLEncoder.encode(name, StandardCharsets.UTF_8)))
          .header("Content-Type", "application/x-ndjson")
          .POST(BodyPublishers.ofFile(ndjson))
          .build();
    } catch (FileNotFoundException e) {
      throw new IllegalArgumentException("no file " + ndjson, e);
    }
    HttpResponse<Stream<String>> response = lines(request);
    Map<String, Long> nodes = new HashMap<>();
    try (Stream<String> lines = response.body()) {
      ImportReport last = null;
      for (String text : (Iterable<String>) lines::iterator) {
        JsonNode line = parseLine(response.statusCode(), text);
        if (response.statusCode() != 200 || line.has("error")) {
          JsonNode error = line.path("error");
          throw new QuiverException(response.statusCode(), error.path("code").asText("internal"),
              error.path("message").asText("HTTP " + response.statusCode()), error.path("details"), null);
        }
        if (line.has("nodes")) {
          line.get("nodes").fields().forEachRemaining(node -> nodes.put(node.getKey(), Long.parseLong(node.getValue().asText())));
        } else if (line.has("progress")) {
          progress.accept(importReport(line.get("progress"), Map.of()));
        } else if (line.has("report")) {
          last = importReport(line.get("report"), nodes);
        }
      }
      if (last == null) {
        throw new QuiverException(response.statusCode(), "unavailable", "the import's answer ended without a report",
            null, null);
      }
      return last;
    }
  }

  private static JsonNode parseLine(int status, String text) {
    try {
      return MAPPER.readTree(text);
    } catch (IOException e) {
      throw new QuiverException(status, "internal", "Quiver answered a line that is not JSON", null, e);
    }
  }

  private static ImportReport importReport(JsonNode json, Map<String, Long> nodes) {
    List<ImportReport.Refused> refused = new ArrayList<>();
    json.path("refused").forEach(line -> refused.add(new ImportReport.Refused(line.path("line").asLong(),
        line.path("code").asText(), line.path("message").asText())));
    return new ImportReport(json.path("lines").asLong(), json.path("nodesCreated").asLong(),
        json.path("nodesExisting").asLong(), json.path("edgesCreated").asLong(), json.path("edgesUpdated").asLong(),
        json.path("edgesUnchanged").asLong(), json.path("inversesLeft").asLong(), json.path("refusedCount").asLong(),
        refused, nodes);
  }

  private CompletableFuture<JsonNode> call(String method, String path, JsonNode body, Long expectedVersion) {
    return callWith(method, path, body, expectedVersion == null || expectedVersion == ANY_VERSION ? Map.of()
        : Map.of("If-Match", "\"" + expectedVersion + "\""));
  }

  /** A call with the request's condition headers ({@code If-Match}, {@code If-None-Match}). */
  private CompletableFuture<JsonNode> callWith(String method, String path, JsonNode body,
      Map<String, String> conditions) {
    HttpRequest.Builder request = HttpRequest.newBuilder(URI.create(base + path))
        .timeout(timeout)
        .header("Accept", "application/json");
    if (staleTolerant) {
      request.header(CONSISTENCY_HEADER, "bounded-staleness");
    }
    conditions.forEach(request::header);
    String token = session == null ? null : session.get();
    if (token != null) {
      request.header(TOKEN_HEADER, token);
    }
    if (body == null) {
      request.method(method, BodyPublishers.noBody());
    } else {
      request.header("Content-Type", "application/json").method(method, BodyPublishers.ofByteArray(bytes(body)));
    }
    return http.sendAsync(request.build(), BodyHandlers.ofByteArray())
        .handle((response, failure) -> {
          if (failure != null) {
            Throwable cause = failure instanceof CompletionException wrapped ? wrapped.getCause() : failure;
            throw new QuiverException(0, "unavailable", "could not reach Quiver at " + base + ": " + cause, null, cause);
          }
          if (session != null) {
            response.headers().firstValue(TOKEN_HEADER).ifPresent(session::answered);
          }
          return answer(response);
        });
  }

  private static JsonNode answer(HttpResponse<byte[]> response) {
    byte[] body = response.body();
    JsonNode json;
    try {
      json = body.length == 0 ? MAPPER.createObjectNode() : MAPPER.readTree(body);
    } catch (IOException e) {
      throw new QuiverException(response.statusCode(), "internal", "Quiver answered something that is not JSON", null, e);
    }
    if (response.statusCode() >= 300) {
      JsonNode error = json.path("error");
      throw new QuiverException(response.statusCode(), error.path("code").asText("internal"),
          error.path("message").asText("HTTP " + response.statusCode()), error.path("details"), null);
    }
    return json;
  }

  private static byte[] bytes(JsonNode json) {
    try {
      return MAPPER.writeValueAsBytes(json);
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot write the request body", e);
    }
  }

  private static <T> T join(CompletableFuture<T> future) {
    try {
      return future.join();
    } catch (CompletionException e) {
      if (e.getCause() instanceof QuiverException quiver) {
        throw quiver;
      }
      throw e;
    }
  }

  static Node node(JsonNode json) {
    return new Node(json.get("id").asLong(), json.get("type").asText(), json.get("shard").asInt(),
        (ObjectNode) json.get("data"), json.get("version").asLong(), Instant.parse(json.get("createdAt").asText()),
        Instant.parse(json.get("updatedAt").asText()));
  }

  static Edge edge(JsonNode json) {
    return new Edge(json.get("from").asLong(), json.get("type").asText(), json.get("to").asLong(),
        json.get("sequence").asLong(), (ObjectNode) json.get("data"), Instant.parse(json.get("updatedAt").asText()),
        json.hasNonNull("node") ? node(json.get("node")) : null, "archived".equals(json.path("state").asText()));
  }

  private static <T> List<T> list(JsonNode array, Function<JsonNode, T> read) {
    List<T> items = new ArrayList<>();
    if (array != null) {
      array.forEach(item -> items.add(read.apply(item)));
    }
    return List.copyOf(items);
  }

  private static List<Long> ids(JsonNode array) {
    return list(array, JsonNode::asLong);
  }

  @Override
  public void close() {
    // The JDK client of Java 17 has no close; its threads end with the client.
  }
}
