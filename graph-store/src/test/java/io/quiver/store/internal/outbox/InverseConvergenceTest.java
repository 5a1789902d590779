package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
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
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * Both directions of several edge types, a symmetric one among them, written concurrently and at
 * random on a small set of nodes spread over two hosts — adds, removals, archives and restores —
 * so that the same edges are written from both sides over and over: once the outboxes drain,
 * every copy equals its mirror.
 */
@ExtendWith(GraphInvariants.class)
class InverseConvergenceTest {
  private static final int OPERATIONS = 10_000;
  private static final int IN_FLIGHT = 48;

  private static StoreFixture fixture;
  private static ShardTables tables;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
    tables = new ShardTables(TestBackend.get());
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  /** One edge type of a pair, with the nodes its ends may be. */
  private record Side(String type, List<NodeId> from, List<NodeId> to) {}

  @Test
  void randomConcurrentWritesOnBothDirections_convergeOnceTheOutboxesDrain() throws Exception {
    GraphStore store = fixture.store;
    List<NodeId> users = create(store, "user", "{\"name\": \"u\"}", 6);
    List<NodeId> boards = create(store, "board", "{\"title\": \"b\"}", 4);
    List<NodeId> pins = create(store, "pin", "{\"link\": \"l\"}", 6);
    List<Side> sides = List.of(
        new Side("board_has_pins", boards, pins), new Side("pin_owned_by_board", pins, boards),
        new Side("follows", users, users), new Side("followed_by", users, users),
        new Side("friends", users, users));
    assertThat(hostsOf(users)).as("the nodes span both hosts").contains("h1", "h2");

    Random random = new Random(20261121);
    int acknowledged = 0;
    for (int done = 0; done < OPERATIONS; done += IN_FLIGHT) {
      List<Future<?>> batch = new ArrayList<>();
      for (int i = 0; i < IN_FLIGHT && done + i < OPERATIONS; i++) {
        batch.add(randomOperation(store, sides.get(random.nextInt(sides.size())), random));
      }
      Future.join(batch).otherwiseEmpty().await();
      acknowledged += (int) batch.stream().filter(InverseConvergenceTest::answered).count();
    }
    System.out.printf("%d of %d random operations answered as they should be%n", acknowledged, OPERATIONS);
    assertThat(acknowledged).isGreaterThan(OPERATIONS * 9 / 10);

    tables.awaitOutboxesDrained(Duration.ofSeconds(60));

    assertThat(tables.outboxEntries(true)).as("parked entries").isZero();
    assertMirrors("board_has_pins", "pin_owned_by_board");
    assertMirrors("follows", "followed_by");
    assertMirrors("friends", "friends");
    assertCountsMatchRows("board_has_pins", 1);
    assertCountsMatchRows("pin_owned_by_board", 2);
    assertCountsMatchRows("follows", 5);
    assertCountsMatchRows("followed_by", 6);
    assertCountsMatchRows("friends", 7);
  }

  private static Future<?> randomOperation(GraphStore store, Side side, Random random) {
    NodeId from = side.from().get(random.nextInt(side.from().size()));
    NodeId to = side.to().get(random.nextInt(side.to().size()));
    int kind = random.nextInt(20);
    if (kind < 10) {
      Long sequence = random.nextBoolean() ? (long) random.nextInt(1000) : null;
      var data = random.nextBoolean() ? json("{\"note\": \"n" + random.nextInt(5) + "\"}") : null;
      return store.addEdge(from, side.type(), to, sequence, data);
    }
    if (kind < 15) {
      return store.removeEdge(from, side.type(), to);
    }
    return kind < 18 ? store.archiveEdge(from, side.type(), to, InverseWait.ASYNC)
        : store.restoreEdge(from, side.type(), to, InverseWait.ASYNC);
  }

  /** Acknowledged, or refused as NOT_FOUND (an archive or restore of an edge that is not there). */
  private static boolean answered(Future<?> operation) {
    return operation.succeeded() || operation.cause() instanceof GraphException graph
        && graph.code() == GraphException.Code.NOT_FOUND;
  }

  private static void assertMirrors(String forward, String inverse) throws Exception {
    Map<Key, EdgeRow> forwardRows = tables.edges(forward);
    Map<Key, EdgeRow> inverseRows = tables.edges(inverse);
    Map<Key, EdgeRow> mirrored = new HashMap<>();
    forwardRows.forEach((key, row) -> mirrored.put(key.mirror(), row));
    long active = forwardRows.values().stream().filter(EdgeRow::active).count();
    long archived = forwardRows.values().stream().filter(row -> row.state() == EdgeRow.ARCHIVED).count();
    System.out.printf("%s: %d rows (%d active, %d archived) mirror %s%n", forward, forwardRows.size(), active,
        archived, inverse);
    assertThat(active).as("some edges stay active").isPositive();
    assertThat(archived).as("some edges stay archived").isPositive();
    assertThat(inverseRows).as("%s is the mirror of %s", inverse, forward).isEqualTo(mirrored);
  }

  private static void assertCountsMatchRows(String type, int typeId) throws Exception {
    tables.countsAgainstRows(type).forEach((from, counts) ->
        assertThat(counts[0]).as("count of %s from %d", type, from).isEqualTo(counts[1]));
  }

  /** At least {@code count} nodes on random shards, and more if needed until they span both hosts. */
  private static List<NodeId> create(GraphStore store, String type, String data, int count) {
    List<NodeId> ids = new ArrayList<>();
    while (ids.size() < count || hostsOf(ids).size() < 2) {
      ids.add(store.createNode(type, json(data), null).await().id());
    }
    return ids;
  }

  private static java.util.Set<String> hostsOf(List<NodeId> ids) {
    return ids.stream().map(id -> TestBackend.get().shardMap().rangeOf(id.shard()).orElseThrow().host())
        .collect(java.util.stream.Collectors.toSet());
  }
}
