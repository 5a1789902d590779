package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiFixture;
import io.quiver.client.ChangeEvent;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import io.quiver.core.testing.Await;
import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change log followed over HTTP by a consumer that is cut off at random points and resumes from
 * the cursor of the last event it processed, while eight clients write: it ends having seen every
 * committed change exactly once, in order per node and per edge list. The default run makes about
 * 2,000 writes; {@code -Dquiver.changes.writes=20000} makes the long one.
 */
class ChangeFeedTest {
  private static final int WRITERS = 8;
  private static final int WRITES = Integer.getInteger("quiver.changes.writes", 2_000);
  private static ApiFixture server;
  private static QuiverClient quiver;

  @BeforeAll
  static void start() throws Exception {
    server = new ApiFixture();
    quiver = QuiverClient.create(URI.create("http://localhost:" + server.port()));
  }

  @AfterAll
  static void stop() {
    quiver.close();
    server.close();
  }

  /** What the writers were answered: each node's versions (0 for its deletion), each edge's forward changes. */
  private static final class Model {
    final Map<String, List<Long>> nodeVersions = new ConcurrentHashMap<>();
    final Map<String, List<String>> forwardEdges = new ConcurrentHashMap<>();
    final AtomicInteger writes = new AtomicInteger();

    void node(long id, long version) {
      nodeVersions.computeIfAbsent(Long.toString(id), key -> java.util.Collections.synchronizedList(new ArrayList<>()))
          .add(version);
      writes.incrementAndGet();
    }

    void edge(long from, long to, String change) {
      forwardEdges.computeIfAbsent(from + " follows " + to,
          key -> java.util.Collections.synchronizedList(new ArrayList<>())).add(change);
      writes.incrementAndGet();
    }
  }

  @Test
  void aConsumerCutOffAtRandomPoints_resumesFromItsLastCursor_andSeesEveryCommittedChangeOnce_inOrderPerKey()
      throws Exception {
    String start = quiver.changes("now", List.of(), 1).cursor();
    Model model = new Model();
    ExecutorService writers = Executors.newFixedThreadPool(WRITERS);
    for (int w = 0; w < WRITERS; w++) {
      writers.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        List<Node> mine = new ArrayList<>();
        Set<String> linked = new java.util.HashSet<>();
        while (model.writes.get() < WRITES) {
          int roll = random.nextInt(10);
          if (mine.size() < 2 || roll < 3) {
            Node node = quiver.createNode("user", Map.of("name", "n"));
            mine.add(node);
            model.node(node.id(), node.version());
          } else if (roll < 6) {
            Node node = mine.get(random.nextInt(mine.size()));
            Node updated = quiver.updateNode(node.id(), Map.of("name", "u" + random.nextInt(100)));
            model.node(node.id(), updated.version());
          } else if (roll < 8) {
            Node a = mine.get(random.nextInt(mine.size()));
            Node b = mine.get(random.nextInt(mine.size()));
            if (a.id() != b.id() && linked.add(a.id() + ">" + b.id())) {
              quiver.addEdge(a.id(), "follows", b.id());
              model.edge(a.id(), b.id(), "added");
            }
          } else if (!linked.isEmpty()) {
            String pair = linked.iterator().next();
            linked.remove(pair);
            long from = Long.parseLong(pair.substring(0, pair.indexOf('>')));
            long to = Long.parseLong(pair.substring(pair.indexOf('>') + 1));
            quiver.removeEdge(from, "follows", to);
            model.edge(from, to, "removed");
          }
        }
        return null;
      });
    }

    // The consumer: follows, processes events, is cut off every so often, resumes from its last cursor.
    List<ChangeEvent> processed = new ArrayList<>();
    String cursor = start;
    int cutOffs = 0;
    int heartbeats = 0;
    writers.shutdown();
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    while (System.nanoTime() < deadline) {
      boolean writersDone = writers.isTerminated();
      String end = writersDone ? quiver.changes("now", List.of(), 1).cursor() : null;
      int runFor = ThreadLocalRandom.current().nextInt(1, 400);
      try (Stream<ChangeEvent> events = quiver.follow(cursor, List.of())) {
        Iterator<ChangeEvent> next = events.iterator();
        for (int i = 0; i < runFor && !(writersDone && caughtUp(cursor, end)) && next.hasNext(); i++) {
          ChangeEvent event = next.next();
          if (event.heartbeat()) {
            // Nothing new for 5 s: the writers may have finished since this session began.
            heartbeats++;
            cursor = event.cursor();
            break;
          }
          processed.add(event);
          cursor = event.cursor();
        }
      }
      cutOffs++;
      if (writersDone && caughtUp(cursor, end)) {
        break;
      }
    }
    assertThat(writers.awaitTermination(1, TimeUnit.MINUTES)).isTrue();

    List<ChangeEvent> mine = new ArrayList<>();
    for (ChangeEvent event : processed) {
      String id = event.event().path(event.kind().equals("node") ? "id" : "from").asText();
      if (model.nodeVersions.containsKey(id)) {
        mine.add(event);
      }
    }
    System.out.printf("change feed: %d writes by %d clients, %d events followed by a consumer cut off %d times"
        + " (%d heartbeats)%n", model.writes.get(), WRITERS, processed.size(), cutOffs, heartbeats);
    assertThat(processed.stream().map(ChangeEvent::cursor).toList()).as("no event twice").doesNotHaveDuplicates();
    // Every committed node version, once, in commit order.
    Map<String, List<Long>> seenVersions = new ConcurrentHashMap<>();
    Map<String, List<String>> seenForward = new ConcurrentHashMap<>();
    Map<String, List<Long>> listVersions = new ConcurrentHashMap<>();
    for (ChangeEvent event : mine) {
      if (event.kind().equals("node")) {
        seenVersions.computeIfAbsent(event.event().path("id").asText(), key -> new ArrayList<>())
            .add(event.event().path("version").asLong());
      } else {
        String list = event.event().path("from").asText() + " " + event.event().path("type").asText();
        listVersions.computeIfAbsent(list, key -> new ArrayList<>()).add(event.event().path("listVersion").asLong());
        if (event.event().path("copy").asText().equals("forward")) {
          seenForward.computeIfAbsent(list + " " + event.event().path("to").asText(), key -> new ArrayList<>())
              .add(event.change());
        }
      }
    }
    assertThat(seenVersions).as("every node version acknowledged, once, in order").isEqualTo(model.nodeVersions);
    assertThat(seenForward).as("every forward edge change acknowledged, once, in order").isEqualTo(model.forwardEdges);
    listVersions.forEach((list, versions) -> assertThat(versions).as("list " + list + " in commit order")
        .isSortedAccordingTo(Long::compare).doesNotHaveDuplicates());
  }

  /** Whether {@code cursor} has reached {@code end} on every shard {@code end} names. */
  private static boolean caughtUp(String cursor, String end) {
    io.quiver.store.ChangeCursor at = io.quiver.store.ChangeCursor.parse(cursor);
    return io.quiver.store.ChangeCursor.parse(end).positions().entrySet().stream()
        .allMatch(shard -> at.position(shard.getKey()) >= shard.getValue());
  }

  @Test
  void aPageOfChanges_andItsRefusals() throws Exception {
    String start = quiver.changes("now", List.of(), 1).cursor();
    Node node = quiver.createNode("board", Map.of("title", "paged"));
    Await.until("the new board logged", Duration.ofSeconds(10),
        () -> !quiver.changes(start, List.of("board"), 10).events().isEmpty());
    QuiverClient.ChangePage page = quiver.changes(start, List.of("board"), 10);
    assertThat(page.events()).anySatisfy(event -> {
      assertThat(event.kind()).isEqualTo("node");
      assertThat(event.change()).isEqualTo("created");
      assertThat(event.event().path("id").asText()).isEqualTo(Long.toString(node.id()));
      assertThat(event.event().path("data").path("title").asText()).isEqualTo("paged");
      assertThat(event.event().path("writtenAt").asText()).isNotEmpty();
    });
    assertThat(quiver.changes(page.cursor(), List.of("board"), 10).events()).isEmpty();
    for (String bad : List.of("not-a-cursor")) {
      QuiverException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
          () -> quiver.changes(bad, List.of(), 10), QuiverException.class);
      assertThat(refused.status()).isEqualTo(400);
    }
    assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(() -> quiver.changes(null, List.of(), 0),
        QuiverException.class).status()).isEqualTo(400);
    assertThat(server.call(io.vertx.core.http.HttpMethod.GET, "/v1/changes?shards=9-2").status()).isEqualTo(400);
    assertThat(server.call(io.vertx.core.http.HttpMethod.GET, "/v1/changes?since=x").status()).isEqualTo(400);
    assertThat(server.call(io.vertx.core.http.HttpMethod.GET, "/v1/changes?types=a;b").status()).isEqualTo(400);
  }
}
