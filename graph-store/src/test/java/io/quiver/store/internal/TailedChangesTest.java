package io.quiver.store.internal;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.core.testing.Await;
import io.quiver.schema.SchemaSource;
import io.quiver.store.BulkImport;
import io.quiver.store.BulkLine;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeEvent;
import io.quiver.store.ChangeLog;
import io.quiver.store.ChangePage;
import io.quiver.store.EdgeResult;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.Node;
import io.quiver.store.internal.binlog.BinlogTail;
import io.quiver.store.internal.binlog.TailedTransaction;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.shard.Host;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change log built from the binary log is the change log the writes logged: every host of the
 * test backend is tailed while the store, with its log on, makes every kind of change a client
 * and the background work make; the events {@link TailedChanges} builds from the tailed
 * transactions' images are then compared with those the writes logged, per node and per edge copy,
 * in order. The binary log and the log's positions agree on order per node and per list, not
 * across them (concurrent writes to two lists may commit in one order and be numbered in the
 * other), so that is what is compared.
 */
class TailedChangesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final AtomicLong SERVER_IDS = new AtomicLong(4_100_000_000L);
  private static StoreFixture fixture;
  private static GraphStore store;
  private static ChangeLog log;
  private static TailedChanges built;
  private static final List<BinlogTail> tails = new ArrayList<>();
  private static final ConcurrentLinkedQueue<TailedTransaction> delivered = new ConcurrentLinkedQueue<>();

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
    store = fixture.store;
    log = fixture.backend.changeLog();
    SchemaSource schemas = SchemaSource.fixed(fixture.hosts.schema());
    built = new TailedChanges(schemas, new ChangeWriter(true, schemas, Clock.systemUTC()));
    for (Host host : fixture.hosts.shardMap().hosts().values()) {
      tails.add(BinlogTail.start(new BinlogTail.Settings(host.primaryHost(), host.primaryPort(),
          fixture.hosts.hosts().user(), fixture.hosts.hosts().password(), SERVER_IDS.incrementAndGet()),
          position(host), built.tables(), delivered::add));
    }
  }

  @AfterAll
  static void stop() {
    tails.forEach(BinlogTail::close);
    fixture.close();
  }

  @Test
  void theEventsBuiltFromTheBinaryLogAreTheEventsTheWritesLogged_perNodeAndPerCopyInOrder() throws Exception {
    ChangeCursor before = log.end(Set.of()).await();
    Node a = store.createNode("user", json("{\"name\": \"a\"}"), null).await();
    Node b = store.createNode("user", json("{\"name\": \"b\"}"), null).await();
    Node board = store.createNode("board", json("{\"title\": \"t\"}"), null).await();
    Node pin = store.createNode("pin", json("{\"link\": \"l\"}"), null).await();
    store.updateNode(a.id(), json("{\"bio\": \"x\"}"), GraphStore.ANY_VERSION).await();
    store.addEdge(a.id(), "follows", b.id(), 7L, null, EdgeState.ACTIVE, InverseWait.APPLIED).await();
    store.addEdge(board.id(), "board_has_pins", pin.id(), 3L, json("{\"note\": \"n\"}"), EdgeState.ACTIVE,
        InverseWait.APPLIED).await();
    store.addEdge(board.id(), "board_has_pins", pin.id(), 4L, null, EdgeState.ACTIVE, InverseWait.APPLIED).await();
    store.archiveEdge(board.id(), "board_has_pins", pin.id(), InverseWait.APPLIED).await();
    store.restoreEdge(board.id(), "board_has_pins", pin.id(), InverseWait.APPLIED).await();
    store.removeEdge(board.id(), "board_has_pins", pin.id(), InverseWait.APPLIED).await();
    store.addEdge(a.id(), "friends", b.id(), null, null, EdgeState.ACTIVE, InverseWait.APPLIED).await();
    store.addEdge(b.id(), "user_likes_pins", pin.id(), null, null, EdgeState.ACTIVE, InverseWait.ASYNC).await();
    // Sent at once to one list: they share transactions, each at a list version of its own.
    List<Node> followed = new ArrayList<>();
    for (int i = 0; i < 12; i++) {
      followed.add(store.createNode("user", json("{\"name\": \"f" + i + "\"}"), null).await());
    }
    List<Future<EdgeResult>> adds = new ArrayList<>();
    followed.forEach(target -> adds.add(store.addEdge(a.id(), "follows", target.id(), null, null, EdgeState.ACTIVE,
        InverseWait.ASYNC)));
    Future.all(adds).await();
    // A batch of one list with an update before an insert: the rows are written inserts first.
    Node shelf = store.createNode("board", json("{\"title\": \"shelf\"}"), null).await();
    Node kept = store.createNode("pin", json("{\"link\": \"kept\"}"), null).await();
    Node added = store.createNode("pin", json("{\"link\": \"added\"}"), null).await();
    store.addEdge(shelf.id(), "board_has_pins", kept.id(), 1L, null, EdgeState.ACTIVE, InverseWait.APPLIED).await();
    BulkImport bulk = fixture.backend.bulkImport("tailed-" + UUID.randomUUID().toString().substring(0, 8)).await();
    bulk.write(List.of(
        new BulkLine.EdgeLine(1, BulkLine.Endpoint.of(shelf.id()), "board_has_pins", BulkLine.Endpoint.of(kept.id()),
            2L, json("{\"note\": \"again\"}"), EdgeState.ACTIVE),
        new BulkLine.EdgeLine(2, BulkLine.Endpoint.of(shelf.id()), "board_has_pins", BulkLine.Endpoint.of(added.id()),
            3L, null, EdgeState.ACTIVE))).await();
    bulk.close().await();
    // The cascade removes b's edges and, through their inverses, the edges to it.
    store.deleteNode(b.id(), GraphStore.Cascade.EDGES).await();
    store.deleteNode(pin.id()).await();

    Set<String> ids = new java.util.HashSet<>(List.of(a.id().toString(), b.id().toString(), board.id().toString(),
        pin.id().toString(), shelf.id().toString(), kept.id().toString(), added.id().toString()));
    followed.forEach(node -> ids.add(node.id().toString()));
    // Removed from b's side, the edge from a to b is the copy the cascade's inverse writes.
    String removedFollow = "removed inverse " + a.id() + " follows " + b.id();
    Await.until("the cascade's removal of the edge to b logged", Duration.ofSeconds(20),
        () -> byKey(logged(before), ids).values().stream().flatMap(List::stream).map(TailedChangesTest::describe)
            .anyMatch(removedFollow::equals));
    settled(before, ids);
    Map<String, List<JsonNode>> logged = byKey(logged(before), ids);
    Await.until("the same changes built from the tailed transactions", Duration.ofSeconds(20),
        () -> byKey(builtEvents(), ids).values().stream().mapToInt(List::size).sum()
            >= logged.values().stream().mapToInt(List::size).sum());

    Map<String, List<JsonNode>> fromImages = byKey(builtEvents(), ids);
    assertThat(fromImages).as("per node and per copy, the events in order").isEqualTo(logged);
    assertThat(logged.keySet()).as("the script reached forward and inverse copies, nodes and a symmetric type")
        .anyMatch(key -> key.contains(" inverse ")).anyMatch(key -> key.contains(" forward "))
        .anyMatch(key -> key.startsWith("node ")).anyMatch(key -> key.contains(" friends "));
    assertThat(logged.values().stream().flatMap(List::stream).map(event -> event.path("change").asText()))
        .contains("created", "updated", "deleted", "added", "archived", "restored", "removed");
  }

  /** Waits until the log's events about {@code ids} stop growing for a second: the background work is done. */
  private static void settled(ChangeCursor before, Set<String> ids) throws InterruptedException {
    int seen = -1;
    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    while (System.nanoTime() < deadline) {
      int now = byKey(logged(before), ids).values().stream().mapToInt(List::size).sum();
      if (now == seen) {
        return;
      }
      seen = now;
      Thread.sleep(1000);
    }
    throw new AssertionError("the log kept growing for 20 s");
  }

  private static String describe(JsonNode event) {
    return event.path("change").asText() + " " + event.path("copy").asText() + " " + event.path("from").asText()
        + " " + event.path("type").asText() + " " + event.path("to").asText();
  }

  /** Every event of the log from {@code from} to its end as it is now. */
  private static List<String> logged(ChangeCursor from) {
    List<String> events = new ArrayList<>();
    ChangeCursor cursor = from;
    while (true) {
      ChangePage page = log.read(cursor, Set.of(), Set.of(), ChangeLog.MAX_LIMIT).await();
      page.events().stream().map(ChangeEvent::body).forEach(events::add);
      cursor = page.cursor();
      if (page.events().isEmpty()) {
        return events;
      }
    }
  }

  /** Every event built from what the tails delivered so far, each shard's in the order built. */
  private static List<String> builtEvents() {
    List<String> events = new ArrayList<>();
    for (TailedTransaction transaction : delivered) {
      built.read(transaction).entries().values().forEach(entries -> entries.stream().map(ChangesTable.Entry::event)
          .forEach(events::add));
    }
    return events;
  }

  /** The events about {@code ids}, by what they are about (a node, or one copy of an edge), each key's in order. */
  private static Map<String, List<JsonNode>> byKey(List<String> events, Set<String> ids) {
    Map<String, List<JsonNode>> byKey = new TreeMap<>();
    for (String text : events) {
      JsonNode event = parse(text);
      boolean node = event.path("kind").asText().equals("node");
      if (!(node ? ids.contains(event.path("id").asText()) : ids.contains(event.path("from").asText()))) {
        continue;
      }
      String key = node ? "node " + event.path("id").asText()
          : "edge " + event.path("from").asText() + " " + event.path("type").asText() + " "
              + event.path("to").asText() + " " + event.path("copy").asText() + " ";
      byKey.computeIfAbsent(key, k -> new ArrayList<>()).add(event);
    }
    return byKey;
  }

  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(text, e);
    }
  }

  /** The host's position now: a tail started there reads what commits next. */
  private static String position(Host host) throws Exception {
    try (Connection connection = TestBackend.get().connect(host.primary());
        Statement sql = connection.createStatement();
        ResultSet position = sql.executeQuery("SELECT @@gtid_binlog_pos")) {
      position.next();
      return position.getString(1);
    }
  }
}
