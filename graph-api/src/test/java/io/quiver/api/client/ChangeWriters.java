package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.client.ChangeEvent;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Clients making mixed writes while a test follows the change log — users created and updated,
 * {@code follows} edges added and removed — and what each write was answered: the model the events a
 * consumer processed are checked against ({@link #assertSeen}).
 */
final class ChangeWriters {
  /** Each node's acknowledged versions, in the order its writer got them. */
  private final Map<String, List<Long>> nodeVersions = new ConcurrentHashMap<>();
  /** Each forward edge's acknowledged changes ({@code added}, {@code removed}), in order. */
  private final Map<String, List<String>> forwardEdges = new ConcurrentHashMap<>();
  private final AtomicInteger writes = new AtomicInteger();
  private final ExecutorService pool;

  private ChangeWriters(int writers) {
    this.pool = Executors.newFixedThreadPool(writers);
  }

  /** {@code writers} clients of {@code quiver} writing until about {@code total} writes are acknowledged. */
  static ChangeWriters start(QuiverClient quiver, int writers, int total) {
    ChangeWriters model = new ChangeWriters(writers);
    for (int w = 0; w < writers; w++) {
      model.pool.submit(() -> model.write(quiver, total));
    }
    model.pool.shutdown();
    return model;
  }

  private Void write(QuiverClient quiver, int total) {
    ThreadLocalRandom random = ThreadLocalRandom.current();
    List<Node> mine = new ArrayList<>();
    Set<String> linked = new HashSet<>();
    while (writes.get() < total) {
      int roll = random.nextInt(10);
      if (mine.size() < 2 || roll < 3) {
        Node node = quiver.createNode("user", Map.of("name", "n"));
        mine.add(node);
        node(node.id(), node.version());
      } else if (roll < 6) {
        Node node = mine.get(random.nextInt(mine.size()));
        Node updated = quiver.updateNode(node.id(), Map.of("name", "u" + random.nextInt(100)));
        node(node.id(), updated.version());
      } else if (roll < 8) {
        Node a = mine.get(random.nextInt(mine.size()));
        Node b = mine.get(random.nextInt(mine.size()));
        if (a.id() != b.id() && linked.add(a.id() + ">" + b.id())) {
          quiver.addEdge(a.id(), "follows", b.id());
          edge(a.id(), b.id(), "added");
        }
      } else if (!linked.isEmpty()) {
        String pair = linked.iterator().next();
        linked.remove(pair);
        long from = Long.parseLong(pair.substring(0, pair.indexOf('>')));
        long to = Long.parseLong(pair.substring(pair.indexOf('>') + 1));
        quiver.removeEdge(from, "follows", to);
        edge(from, to, "removed");
      }
    }
    return null;
  }

  private void node(long id, long version) {
    nodeVersions.computeIfAbsent(Long.toString(id), key -> Collections.synchronizedList(new ArrayList<>())).add(version);
    writes.incrementAndGet();
  }

  private void edge(long from, long to, String change) {
    forwardEdges.computeIfAbsent(from + " follows " + to, key -> Collections.synchronizedList(new ArrayList<>()))
        .add(change);
    writes.incrementAndGet();
  }

  boolean done() {
    return pool.isTerminated();
  }

  void awaitDone() throws InterruptedException {
    assertThat(pool.awaitTermination(1, TimeUnit.MINUTES)).as("the writers finished").isTrue();
  }

  int writes() {
    return writes.get();
  }

  /**
   * Asserts that {@code processed}, read once each after dropping events read twice (the same
   * shard and position: an at-least-once consumer's repeats), holds every acknowledged node version
   * and forward edge change of these writers exactly once and in order, and each edge list's changes
   * in commit order. Events of several consumers are taken in position order, shard by shard.
   * Answers how many repeats were dropped.
   */
  int assertSeen(List<ChangeEvent> processed) {
    Map<List<Long>, ChangeEvent> once = new TreeMap<>(Comparator.<List<Long>, Long>comparing(key -> key.get(0))
        .thenComparing(key -> key.get(1)));
    processed.forEach(event -> once.putIfAbsent(List.of((long) event.shard(), event.position()), event));
    List<ChangeEvent> distinct = List.copyOf(once.values());
    Map<String, List<Long>> seenVersions = new TreeMap<>();
    Map<String, List<String>> seenForward = new TreeMap<>();
    Map<String, List<Long>> listVersions = new TreeMap<>();
    for (ChangeEvent event : distinct) {
      String id = event.event().path(event.kind().equals("node") ? "id" : "from").asText();
      if (!nodeVersions.containsKey(id)) {
        continue;
      }
      if (event.kind().equals("node")) {
        seenVersions.computeIfAbsent(id, key -> new ArrayList<>()).add(event.event().path("version").asLong());
      } else {
        String list = id + " " + event.event().path("type").asText();
        listVersions.computeIfAbsent(list, key -> new ArrayList<>()).add(event.event().path("listVersion").asLong());
        if (event.event().path("copy").asText().equals("forward")) {
          seenForward.computeIfAbsent(list + " " + event.event().path("to").asText(), key -> new ArrayList<>())
              .add(event.change());
        }
      }
    }
    assertThat(seenVersions).as("every node version acknowledged, once, in order").isEqualTo(nodeVersions);
    assertThat(seenForward).as("every forward edge change acknowledged, once, in order").isEqualTo(forwardEdges);
    listVersions.forEach((list, versions) -> assertThat(versions).as("list " + list + " in commit order")
        .isSortedAccordingTo(Long::compare).doesNotHaveDuplicates());
    return processed.size() - distinct.size();
  }
}
