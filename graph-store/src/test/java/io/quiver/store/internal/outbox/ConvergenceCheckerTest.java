package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.Edge;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore.Cascade;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.RepairReport;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables.Key;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * The convergence checker: what the contract suite is for the store's answers, this is for the two
 * copies of every edge. Seeded random interleavings of every operation that writes an edge —
 * adds (active or archived), updates, removals, archives and restores, from either side of a pair
 * (a symmetric type among them); deletions of nodes with and without cascade; archiving and
 * restoring all of a node's edges — sent concurrently through two servers (two backends, each with
 * its own drainers) on nodes spread over both hosts, a deleted node staying a target of later
 * writes. Once the outboxes drain, every pair is read from both sides through the store and from
 * SQL, and must hold:
 * <ul>
 *   <li>both copies read alike ({@link EdgeRow#readsAs}): through the store (present or not, state,
 *       sequence, write time) and in the rows;
 *   <li>every count equals the active edges its list pages through;
 *   <li>a node deleted with cascade has no live edge, in or out;
 *   <li>repair finds nothing to fix, and neither does a second run.
 * </ul>
 *
 * <p>The default run is short, for {@code mvn -B verify}. A longer one:
 * {@code mvn -B test -pl graph-store -am -Dtest=ConvergenceCheckerTest -Dsurefire.failIfNoSpecifiedTests=false
 * -Dquiver.convergence.operations=50000 [-Dquiver.convergence.seed=N]}.
 */
@ExtendWith(GraphInvariants.class)
class ConvergenceCheckerTest {
  private static final int OPERATIONS = Integer.getInteger("quiver.convergence.operations", 4_000);
  private static final long SEED = Long.getLong("quiver.convergence.seed", 20261125L);
  private static final int IN_FLIGHT = 48;
  private static final int USERS = 10;
  private static final int BOARDS = 4;
  private static final int PINS = 8;

  private static StoreFixture serverA;
  private static StoreFixture serverB;
  private static ShardTables tables;

  @BeforeAll
  static void start() throws Exception {
    serverA = new StoreFixture();
    serverB = new StoreFixture();
    tables = new ShardTables(TestBackend.get());
  }

  @AfterAll
  static void stop() {
    serverB.close();
    serverA.close();
  }

  /** An edge type with its inverse (itself when symmetric), and the node types of its ends. */
  private record Pair(String type, String inverse, String fromType, String toType) {
    boolean symmetric() {
      return type.equals(inverse);
    }
  }

  private static final List<Pair> PAIRS = List.of(
      new Pair("board_has_pins", "pin_owned_by_board", "board", "pin"),
      new Pair("user_likes_pins", "pin_liked_by_user", "user", "pin"),
      new Pair("follows", "followed_by", "user", "user"),
      new Pair("friends", "friends", "user", "user"));

  /**
   * The nodes of the run: by type those still there, and those deleted (with cascade or not),
   * which stay targets of later writes now and then, as a client holding a stale ID would write.
   */
  private static final class Graph {
    final Map<String, List<NodeId>> present = new HashMap<>();
    final Map<String, List<NodeId>> gone = new HashMap<>();
    final Set<NodeId> all = new HashSet<>();
    final Set<NodeId> cascaded = new HashSet<>();

    synchronized NodeId pick(String type, Random random) {
      List<NodeId> deleted = gone.getOrDefault(type, List.of());
      List<NodeId> from = !deleted.isEmpty() && random.nextInt(8) == 0 ? deleted : present.get(type);
      return from.get(random.nextInt(from.size()));
    }

    synchronized void add(String type, NodeId id) {
      present.computeIfAbsent(type, t -> new ArrayList<>()).add(id);
      all.add(id);
    }

    synchronized boolean isPresent(String type, NodeId id) {
      return present.get(type).contains(id);
    }

    synchronized void deleted(String type, NodeId id, boolean cascade) {
      present.get(type).remove(id);
      gone.computeIfAbsent(type, t -> new ArrayList<>()).add(id);
      if (cascade) {
        cascaded.add(id);
      }
    }

    synchronized int deletedCount() {
      return gone.values().stream().mapToInt(List::size).sum();
    }
  }

  @Test
  void everyInterleavingOfEdgeAndNodeWritesOnTwoServers_leavesBothCopiesOfEveryEdgeAlike_andRepairFindsNothing()
      throws Exception {
    // Other test classes of this JVM leave planted damage behind (rows altered behind the store's
    // back): repaired first, so that what repair finds at the end is this run's alone.
    for (Pair pair : PAIRS) {
      RepairReport before = serverA.backend.repairs().edges(pair.type(), line -> { }).await();
      System.out.printf("convergence checker: before the run, repair of %s: %s%n", pair.type(), before);
    }
    Random random = new Random(SEED);
    Graph graph = new Graph();
    create(graph, "user", USERS);
    create(graph, "board", BOARDS);
    create(graph, "pin", PINS);
    assertThat(hostsOf(graph.all)).as("the nodes span both hosts").contains("h1", "h2");

    int answered = 0;
    Map<String, Integer> refused = new HashMap<>();
    long started = System.nanoTime();
    for (int done = 0; done < OPERATIONS; done += IN_FLIGHT) {
      List<Future<?>> batch = new ArrayList<>();
      for (int i = 0; i < IN_FLIGHT && done + i < OPERATIONS; i++) {
        GraphStore server = random.nextBoolean() ? serverA.store : serverB.store;
        batch.add(randomOperation(server, graph, random));
      }
      Future.join(batch).otherwiseEmpty().await();
      for (Future<?> operation : batch) {
        if (answered(operation)) {
          answered++;
        } else {
          refused.merge(String.valueOf(operation.cause()), 1, Integer::sum);
        }
      }
    }
    double seconds = (System.nanoTime() - started) / 1e9;
    System.out.printf("convergence checker: seed %d, %d operations in %.1f s (%d answered as they should be;"
            + " otherwise %s); %d nodes, %d deleted (%d with cascade)%n", SEED, OPERATIONS, seconds, answered,
        refused, graph.all.size(), graph.deletedCount(), graph.cascaded.size());
    assertThat(answered).as("operations answered as they should be; otherwise: %s", refused)
        .isGreaterThan(OPERATIONS * 95 / 100);

    tables.awaitOutboxesDrained(Duration.ofSeconds(120));
    assertThat(tables.outboxEntries(true)).as("parked entries").isZero();

    List<String> damage = new ArrayList<>();
    long pairs = 0;
    long live = 0;
    for (Pair pair : PAIRS) {
      Map<Key, EdgeRow> forward = only(graph, tables.edges(pair.type()));
      Map<Key, EdgeRow> inverse = only(graph, tables.edges(pair.inverse()));
      Set<Key> keys = new HashSet<>(forward.keySet());
      inverse.keySet().forEach(key -> keys.add(key.mirror()));
      for (Key key : keys) {
        pairs++;
        EdgeRow one = forward.getOrDefault(key, EdgeRow.ABSENT);
        EdgeRow other = inverse.getOrDefault(key.mirror(), EdgeRow.ABSENT);
        if (one.live() || other.live()) {
          live++;
        }
        if (!one.readsAs(other)) {
          damage.add(String.format("%s %d -> %d: rows %s and %s", pair.type(), key.from(), key.to(), one, other));
        }
        String read = readsFromBothSides(serverA.store, pair, key);
        if (read != null) {
          damage.add(read);
        }
        for (long end : new long[] {key.from(), key.to()}) {
          if (graph.cascaded.contains(new NodeId(end)) && (one.live() || other.live())) {
            damage.add(String.format("%s %d -> %d is live, but node %d was deleted with cascade: %s and %s",
                pair.type(), key.from(), key.to(), end, one, other));
          }
        }
      }
    }
    damage.addAll(countsAgainstLists(serverB.store, graph));
    System.out.printf("convergence checker: %d pairs (%d live) read from both sides and from SQL, %d damaged%n",
        pairs, live, damage.size());
    assertThat(damage).as("pairs whose copies a reader can tell apart").isEmpty();
    assertThat(live).as("the run leaves live edges to compare").isPositive();

    for (Pair pair : PAIRS) {
      RepairReport first = serverA.backend.repairs().edges(pair.type(), line -> { }).await();
      RepairReport second = serverB.backend.repairs().edges(pair.type(), line -> { }).await();
      assertThat(List.of(first.missingInverse(), first.differing(), first.orphanedInverse(), first.fixed()))
          .as("repair of %s after the run: %s", pair.type(), first).containsOnly(0L);
      assertThat(List.of(second.missingInverse(), second.differing(), second.orphanedInverse(), second.fixed()))
          .as("a second repair of %s: %s", pair.type(), second).containsOnly(0L);
    }
  }

  /** One random operation, on a random pair's random side; node deletions and whole-node archives are rarer. */
  private static Future<?> randomOperation(GraphStore store, Graph graph, Random random) {
    int kind = random.nextInt(100);
    if (kind < 1) {
      return deleteNode(store, graph, random);
    }
    if (kind < 3) {
      NodeId node = graph.pick(random.nextBoolean() ? "user" : "board", random);
      return random.nextBoolean() ? store.archiveEdgesOf(node) : store.restoreEdgesOf(node);
    }
    Pair pair = PAIRS.get(random.nextInt(PAIRS.size()));
    boolean backwards = random.nextBoolean();
    String type = backwards ? pair.inverse() : pair.type();
    NodeId from = graph.pick(backwards ? pair.toType() : pair.fromType(), random);
    NodeId to = graph.pick(backwards ? pair.fromType() : pair.toType(), random);
    InverseWait wait = random.nextInt(4) == 0 ? InverseWait.APPLIED : InverseWait.ASYNC;
    if (kind < 55) {
      Long sequence = random.nextBoolean() ? (long) random.nextInt(1000) : null;
      var data = random.nextBoolean() ? json("{\"note\": \"n" + random.nextInt(5) + "\"}") : null;
      EdgeState state = random.nextInt(6) == 0 ? EdgeState.ARCHIVED : EdgeState.ACTIVE;
      return store.addEdge(from, type, to, sequence, data, state, wait);
    }
    if (kind < 75) {
      return store.removeEdge(from, type, to, wait);
    }
    return kind < 88 ? store.archiveEdge(from, type, to, wait) : store.restoreEdge(from, type, to, wait);
  }

  /** Deletes a node still there, with cascade or without, and creates one of its type in its place. */
  private static Future<?> deleteNode(GraphStore store, Graph graph, Random random) {
    String type = List.of("user", "board", "pin").get(random.nextInt(3));
    NodeId node = graph.pick(type, random);
    boolean cascade = random.nextBoolean();
    if (!graph.isPresent(type, node)) {
      return Future.succeededFuture();
    }
    // Created first, so that every type always has nodes still there to pick.
    return store.createNode(type, json(data(type)), null)
        .onSuccess(created -> graph.add(type, created.id()))
        .compose(created -> store.deleteNode(node, cascade ? Cascade.EDGES : Cascade.NONE))
        .onSuccess(deleted -> graph.deleted(type, node, cascade));
  }

  /**
   * Acknowledged, or refused as NOT_FOUND: an archive or restore of an edge that is not there, an
   * add or archive from a deleted node, a node deleted twice.
   */
  private static boolean answered(Future<?> operation) {
    return operation.succeeded() || operation.cause() instanceof GraphException graph
        && graph.code() == GraphException.Code.NOT_FOUND;
  }

  /** Both copies of a pair read through the store: both absent, or alike; else what differs. */
  private static String readsFromBothSides(GraphStore store, Pair pair, Key key) {
    Edge forward = edgeOrNull(store, new NodeId(key.from()), pair.type(), new NodeId(key.to()));
    Edge inverse = edgeOrNull(store, new NodeId(key.to()), pair.inverse(), new NodeId(key.from()));
    boolean alike = forward == null ? inverse == null : inverse != null
        && forward.state() == inverse.state() && forward.sequence() == inverse.sequence()
        && forward.updatedAt().equals(inverse.updatedAt());
    return alike ? null : String.format("%s %d -> %d reads %s, its inverse %s", pair.type(), key.from(), key.to(),
        forward, inverse);
  }

  private static Edge edgeOrNull(GraphStore store, NodeId from, String type, NodeId to) {
    Future<Edge> read = store.getEdge(from, type, to);
    read.otherwiseEmpty().await();
    if (read.succeeded()) {
      return read.result();
    }
    if (read.cause() instanceof GraphException graph && graph.code() == GraphException.Code.NOT_FOUND) {
      return null;
    }
    throw new AssertionError("reading " + type + " " + from + " -> " + to, read.cause());
  }

  /** Every list of the run's nodes: its count against the active edges its pages hold. */
  private static List<String> countsAgainstLists(GraphStore store, Graph graph) {
    List<String> wrong = new ArrayList<>();
    for (Pair pair : PAIRS) {
      for (String type : pair.symmetric() ? List.of(pair.type()) : List.of(pair.type(), pair.inverse())) {
        String fromType = type.equals(pair.type()) ? pair.fromType() : pair.toType();
        int nodeType = TestBackend.get().schema().nodeType(fromType).orElseThrow().id();
        for (NodeId node : graph.all.stream().filter(node -> node.type() == nodeType).toList()) {
          long count = store.countEdges(node, type).await();
          int listed = store.getEdges(node, type, EdgeQuery.firstPage(EdgeQuery.MAX_LIMIT)).await().edges().size();
          if (count != listed) {
            wrong.add(String.format("%s from %s: count %d, %d listed", type, node, count, listed));
          }
        }
      }
    }
    return wrong;
  }

  private static Map<Key, EdgeRow> only(Graph graph, Map<Key, EdgeRow> rows) {
    return rows.entrySet().stream()
        .filter(row -> graph.all.contains(new NodeId(row.getKey().from())))
        .collect(Collectors.toMap(Map.Entry::getKey, Map.Entry::getValue));
  }

  private static String data(String type) {
    return switch (type) {
      case "user" -> "{\"name\": \"u\"}";
      case "board" -> "{\"title\": \"b\"}";
      default -> "{\"link\": \"l\"}";
    };
  }

  private static void create(Graph graph, String type, int count) {
    for (int i = 0; i < count; i++) {
      graph.add(type, serverA.store.createNode(type, json(data(type)), null).await().id());
    }
  }

  private static Set<String> hostsOf(Set<NodeId> ids) {
    return ids.stream().map(id -> TestBackend.get().shardMap().rangeOf(id.shard()).orElseThrow().host())
        .collect(Collectors.toSet());
  }
}
