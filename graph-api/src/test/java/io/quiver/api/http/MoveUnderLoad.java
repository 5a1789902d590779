package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.core.testing.Await;
import io.quiver.store.ChangeEvent;
import io.quiver.store.NodeId;
import io.quiver.store.testing.ChangeFollower;
import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Eight clients writing and reading a fleet's users through its two servers while some of its
 * shards move, each write's outcome kept; and the checks that every acknowledged write outlived
 * the move — in the tables, in both copies of every edge, in the counts, and in the change log a
 * consumer followed through it ({@code ShardMoveTest}, {@code TailedShardMoveTest}).
 */
final class MoveUnderLoad {
  private static final int CLIENTS = 8;

  private final ApiFixture first;
  private final ApiFixture second;
  private final List<String> users;
  private final Set<Integer> moving;
  private final AtomicBoolean running = new AtomicBoolean(true);
  final AtomicLong acknowledged = new AtomicLong();
  private final ConcurrentLinkedQueue<List<String>> edges = new ConcurrentLinkedQueue<>();
  private final Map<String, String> lastBio = new ConcurrentHashMap<>();
  final ConcurrentLinkedQueue<Long> refusals = new ConcurrentLinkedQueue<>();
  final ConcurrentLinkedQueue<String> unmovedFailures = new ConcurrentLinkedQueue<>();
  private final ConcurrentLinkedQueue<String> otherFailures = new ConcurrentLinkedQueue<>();
  private final ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);

  /** A load on {@code users} (a multiple of eight), through both servers, while {@code moving} move. */
  MoveUnderLoad(ApiFixture first, ApiFixture second, List<String> users, Set<Integer> moving) {
    this.first = first;
    this.second = second;
    this.users = List.copyOf(users);
    this.moving = moving;
  }

  /** {@code count} users created through {@code server}, named {@code name} and their number: a load's users. */
  static List<String> users(ApiFixture server, String name, int count) {
    List<String> created = new java.util.ArrayList<>();
    for (int i = 0; i < count; i++) {
      Answer answer = server.call(io.vertx.core.http.HttpMethod.POST, "/v1/nodes/user",
          "{\"data\": {\"name\": \"" + name + i + "\"}}");
      assertThat(answer.status()).as(answer.text()).isEqualTo(201);
      created.add(answer.id());
    }
    return created;
  }

  void start() {
    for (int client = 0; client < CLIENTS; client++) {
      int me = client;
      clients.submit(() -> run(me));
    }
  }

  void stop() throws InterruptedException {
    running.set(false);
    clients.shutdown();
    assertThat(clients.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  private void run(int me) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    int written = 0;
    while (running.get()) {
      ApiFixture server = random.nextBoolean() ? first : second;
      int choice = random.nextInt(4);
      if (choice < 2) {
        String from = users.get(random.nextInt(users.size()));
        String to = users.get(random.nextInt(users.size()));
        Answer added = server.call(PUT, "/v1/nodes/" + from + "/edges/follows/" + to, "{}");
        if (outcome(added, "addEdge " + from + "->" + to, from, to)) {
          edges.add(List.of(from, to));
        }
      } else if (choice == 2) {
        // Each client updates its own users, one at a time, so the last acknowledged value is known.
        String user = users.get(me + CLIENTS * random.nextInt(users.size() / CLIENTS));
        String bio = "client " + me + " write " + written++;
        Answer updated = server.call(PATCH, "/v1/nodes/" + user, "{\"data\": {\"bio\": \"" + bio + "\"}}");
        if (outcome(updated, "updateNode " + user, user, user)) {
          lastBio.put(user, bio);
        }
      } else {
        String user = users.get(random.nextInt(users.size()));
        Answer read = server.call(GET, "/v1/nodes/" + user);
        if (read.status() != 200) {
          (touches(user, user) ? otherFailures : unmovedFailures).add("getNode " + user + ": " + read.text());
        }
      }
    }
  }

  /** Whether the write was acknowledged; a refusal is kept by kind. */
  private boolean outcome(Answer answer, String what, String a, String b) {
    if (answer.status() == 200 || answer.status() == 201) {
      acknowledged.incrementAndGet();
      return true;
    }
    if (!touches(a, b)) {
      unmovedFailures.add(what + ": " + answer.status() + " " + answer.text());
    } else if (answer.status() == 503 && answer.headers().get("Retry-After") != null) {
      refusals.add(System.nanoTime());
    } else {
      otherFailures.add(what + ": " + answer.status() + " " + answer.text());
    }
    return false;
  }

  private boolean touches(String a, String b) {
    return moving.contains(NodeId.parse(a).orElseThrow().shard()) || moving.contains(NodeId.parse(b).orElseThrow().shard());
  }

  /** From the first refusal to the last: the move refuses writes only during its cut-over. */
  long longestRefusal() {
    if (refusals.isEmpty()) {
      return 0;
    }
    long earliest = refusals.stream().mapToLong(Long::longValue).min().orElseThrow();
    long latest = refusals.stream().mapToLong(Long::longValue).max().orElseThrow();
    return TimeUnit.NANOSECONDS.toMillis(latest - earliest);
  }

  /**
   * Once the load has stopped: nothing but a moving shard's writes failed, and only with a 503
   * saying when to retry; every acknowledged bio and edge is there, read through the servers
   * (which read the moved shards from their new host), with its inverse and in its counts; and
   * {@code follower}, which followed the change log through the move, saw no position skipped or
   * repeated (the moved shards' positions go on on the new host), every acknowledged write, and
   * the moved shards' changes.
   */
  void assertEveryAcknowledgedWriteKept(ChangeFollower follower) throws Exception {
    assertThat(unmovedFailures).as("requests to unmoved shards that failed").isEmpty();
    assertThat(otherFailures).as("requests that failed other than with a 503 on a moving shard").isEmpty();
    assertThat(acknowledged.get()).isGreaterThan(100);
    for (Map.Entry<String, String> bio : lastBio.entrySet()) {
      assertThat(first.call(GET, "/v1/nodes/" + bio.getKey()).body().at("/data/bio").asText())
          .as("the last acknowledged bio of " + bio.getKey()).isEqualTo(bio.getValue());
    }
    Await.until("every acknowledged edge has its inverse", Duration.ofSeconds(30), () ->
        edges.stream().allMatch(edge -> second.call(GET, "/v1/nodes/" + edge.get(1) + "/edges/followed_by/"
            + edge.get(0)).status() == 200));
    Map<String, Set<String>> follows = new HashMap<>();
    Map<String, Set<String>> followers = new HashMap<>();
    for (List<String> edge : edges) {
      assertThat(first.call(GET, "/v1/nodes/" + edge.get(0) + "/edges/follows/" + edge.get(1)).status())
          .as("acknowledged edge " + edge).isEqualTo(200);
      follows.computeIfAbsent(edge.get(0), from -> new HashSet<>()).add(edge.get(1));
      followers.computeIfAbsent(edge.get(1), to -> new HashSet<>()).add(edge.get(0));
    }
    for (String user : users) {
      assertThat(first.call(GET, "/v1/nodes/" + user + "/edges/follows/count").body().get("count").asLong())
          .as("follows of " + user).isEqualTo(follows.getOrDefault(user, Set.of()).size());
      assertThat(first.call(GET, "/v1/nodes/" + user + "/edges/followed_by/count").body().get("count").asLong())
          .as("followers of " + user).isEqualTo(followers.getOrDefault(user, Set.of()).size());
    }

    List<ChangeEvent> followed = follower.stopAndReadToEnd(Duration.ofSeconds(2));
    assertThat(ChangeFollower.gapsAndRepeats(followed)).as("positions skipped or repeated").isEmpty();
    Set<String> loggedEdges = new HashSet<>();
    Set<String> loggedBios = new HashSet<>();
    Set<Integer> loggedShards = new HashSet<>();
    for (ChangeEvent event : followed) {
      JsonNode body = ChangeFollower.body(event);
      loggedShards.add(event.shard());
      loggedBios.add(body.at("/data/bio").asText());
      if (body.path("copy").asText().equals("forward") && body.path("type").asText().equals("follows")) {
        loggedEdges.add(body.get("from").asText() + ">" + body.get("to").asText());
      }
    }
    assertThat(loggedBios).as("every acknowledged bio logged").containsAll(lastBio.values());
    Map<String, Long> loggedTimes = new HashMap<>();
    for (ChangeEvent event : followed) {
      JsonNode bio = ChangeFollower.body(event).at("/data/bio");
      // Each client write's bio is its own; "" is the schema's default every new user has.
      if (bio.isTextual() && !bio.asText().isEmpty()) {
        loggedTimes.merge(bio.asText(), 1L, Long::sum);
      }
    }
    assertThat(loggedTimes).as("bios logged more than once (each is written once)")
        .allSatisfy((bio, times) -> assertThat(times).as(bio).isEqualTo(1L));
    assertThat(loggedEdges).as("every acknowledged edge logged")
        .containsAll(edges.stream().map(edge -> edge.get(0) + ">" + edge.get(1)).toList());
    assertThat(loggedShards).as("the moved shards followed across the move").containsAll(moving);
    System.out.printf("a consumer followed %d changes through the move (%d reads refused)%n", followed.size(),
        follower.refusals());
  }
}
