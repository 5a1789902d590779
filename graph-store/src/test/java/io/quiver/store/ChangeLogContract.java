package io.quiver.store;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.store.testing.StoreFixture;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * The durable change log on real MariaDB hosts: what it records, in what order, and how a consumer
 * resumes — one contract, run against each source the log is written from
 * ({@link ChangeLogSettings.Source}): {@code ChangeLogTest} (the writes) and
 * {@code TailedChangeLogTest} (the binary log, through a tailer per host).
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
abstract class ChangeLogContract {
  private static final ObjectMapper JSON = new ObjectMapper();
  private StoreFixture fixture;
  private GraphStore store;
  private ChangeLog log;

  /** Where the log under test is written from. */
  abstract ChangeLogSettings.Source source();

  @BeforeAll
  void start() throws Exception {
    fixture = StoreFixture.withChangeLog(ChangeLogSettings.defaults().from(source()));
    store = fixture.store;
    log = fixture.backend.changeLog();
  }

  @AfterAll
  void stop() {
    fixture.close();
  }

  /** Every event from {@code from} to the end of the log as it is now, and the cursor after them. */
  private ChangePage readToEnd(ChangeCursor from, Set<String> types, int pageSize) {
    List<ChangeEvent> events = new ArrayList<>();
    ChangeCursor cursor = from;
    while (true) {
      ChangePage page = log.read(cursor, Set.of(), types, pageSize).await();
      events.addAll(page.events());
      cursor = page.cursor();
      if (page.events().isEmpty()) {
        return new ChangePage(events, cursor);
      }
    }
  }

  /** The events about {@code ids} (a node's own, or an edge's from or to it), in log order. */
  private static List<JsonNode> about(List<ChangeEvent> events, Set<String> ids) {
    List<JsonNode> found = new ArrayList<>();
    for (ChangeEvent event : events) {
      JsonNode body = parse(event.body());
      if (ids.contains(body.path("id").asText()) || ids.contains(body.path("from").asText())) {
        found.add(body);
      }
    }
    return found;
  }

  private static JsonNode parse(String text) {
    try {
      return JSON.readTree(text);
    } catch (Exception e) {
      throw new AssertionError(text, e);
    }
  }

  private static String describe(JsonNode event) {
    return event.path("kind").asText().equals("node")
        ? event.path("change").asText() + " " + event.path("id").asText() + " v" + event.path("version").asText()
        : event.path("change").asText() + " " + event.path("copy").asText() + " " + event.path("from").asText()
            + " " + event.path("type").asText() + " " + event.path("to").asText();
  }

  @Test
  void everyCommittedChange_isLogged_inCommitOrderPerNodeAndList_withBothCopiesOfAnEdge() throws Exception {
    ChangeCursor before = log.end(Set.of()).await();
    Node a = store.createNode("user", json("{\"name\": \"a\"}"), null).await();
    Node b = store.createNode("user", json("{\"name\": \"b\"}"), null).await();
    store.updateNode(a.id(), json("{\"bio\": \"x\"}"), GraphStore.ANY_VERSION).await();
    store.addEdge(a.id(), "follows", b.id(), 7L, null, EdgeState.ACTIVE, InverseWait.APPLIED).await();
    store.archiveEdge(a.id(), "follows", b.id(), InverseWait.APPLIED).await();
    store.restoreEdge(a.id(), "follows", b.id(), InverseWait.APPLIED).await();
    store.removeEdge(a.id(), "follows", b.id(), InverseWait.APPLIED).await();
    store.deleteNode(b.id()).await();
    String aId = a.id().toString();
    String bId = b.id().toString();
    List<String> expected = List.of(
        "created " + aId + " v1", "created " + bId + " v1", "updated " + aId + " v2",
        "added forward " + aId + " follows " + bId, "added inverse " + bId + " followed_by " + aId,
        "archived forward " + aId + " follows " + bId, "archived inverse " + bId + " followed_by " + aId,
        "restored forward " + aId + " follows " + bId, "restored inverse " + bId + " followed_by " + aId,
        "removed forward " + aId + " follows " + bId, "removed inverse " + bId + " followed_by " + aId,
        "deleted " + bId + " v");

    Await.until("every change logged and numbered", Duration.ofSeconds(10),
        () -> about(readToEnd(before, Set.of(), ChangeLog.MAX_LIMIT).events(), Set.of(aId, bId)).size()
            >= expected.size());
    List<JsonNode> logged = about(readToEnd(before, Set.of(), ChangeLog.MAX_LIMIT).events(), Set.of(aId, bId));

    assertThat(logged.stream().map(ChangeLogContract::describe).toList())
        .as("each node's and each copy's changes in commit order (across them, no order is promised)")
        .containsAll(expected)
        .hasSize(expected.size());
    for (String key : List.of(aId + " ", "forward " + aId, "inverse " + bId)) {
      List<String> ofKey = logged.stream().map(ChangeLogContract::describe).filter(line -> line.contains(key)).toList();
      assertThat(ofKey).isEqualTo(expected.stream().filter(line -> line.contains(key)).toList());
    }
    JsonNode updated = logged.stream().filter(event -> event.path("change").asText().equals("updated")).findFirst()
        .orElseThrow();
    assertThat(updated.path("data").path("bio").asText()).as("the after-image").isEqualTo("x");
    JsonNode added = logged.stream().filter(event -> event.path("change").asText().equals("added")).findFirst()
        .orElseThrow();
    assertThat(added.path("sequence").asLong()).isEqualTo(7);
    assertThat(added.path("state").asText()).isEqualTo("active");
  }

  /**
   * The version is written by MariaDB (the count row's, read as LAST_INSERT_ID() by the log's
   * INSERT sent behind the write): an event holding another statement's id — the outbox entry's,
   * the log row's own — or another write's version would fail here.
   */
  @Test
  void eachEdgeEvent_carriesTheVersionItsWriteGaveTheList_onBothCopies_withTheRestOfItsEventIntact()
      throws Exception {
    ChangeCursor before = log.end(Set.of()).await();
    Node a = store.createNode("user", json("{\"name\": \"a\"}"), null).await();
    Node b = store.createNode("user", json("{\"name\": \"b\"}"), null).await();
    store.addEdge(a.id(), "follows", b.id(), 3L, json("{\"note\": \"x\"}"), EdgeState.ACTIVE, InverseWait.APPLIED)
        .await();
    store.addEdge(a.id(), "follows", b.id(), 4L, null, EdgeState.ACTIVE, InverseWait.APPLIED).await();
    store.archiveEdge(a.id(), "follows", b.id(), InverseWait.APPLIED).await();
    store.restoreEdge(a.id(), "follows", b.id(), InverseWait.APPLIED).await();
    store.removeEdge(a.id(), "follows", b.id(), InverseWait.APPLIED).await();
    String aId = a.id().toString();
    String bId = b.id().toString();

    Await.until("both copies' five changes logged", Duration.ofSeconds(10),
        () -> about(readToEnd(before, Set.of(), ChangeLog.MAX_LIMIT).events(), Set.of(aId, bId)).stream()
            .filter(event -> event.path("kind").asText().equals("edge")).count() >= 10);
    List<JsonNode> edges = about(readToEnd(before, Set.of(), ChangeLog.MAX_LIMIT).events(), Set.of(aId, bId))
        .stream().filter(event -> event.path("kind").asText().equals("edge")).toList();

    for (String copy : List.of("forward", "inverse")) {
      List<JsonNode> ofCopy = edges.stream().filter(event -> event.path("copy").asText().equals(copy)).toList();
      assertThat(ofCopy.stream().map(event -> event.path("change").asText() + "@" + event.path("listVersion").asLong()))
          .as(copy + " copy: each change at the list version it made")
          .containsExactly("added@1", "updated@2", "archived@3", "restored@4", "removed@5");
    }
    assertThat(store.getEdgeListHead(a.id(), "follows", 1).await().version()).as("the list's own version").isEqualTo(5);
    JsonNode updated = edges.stream().filter(event -> event.path("change").asText().equals("updated")
        && event.path("copy").asText().equals("forward")).findFirst().orElseThrow();
    assertThat(updated.path("sequence").asLong()).isEqualTo(4);
    assertThat(updated.path("state").asText()).isEqualTo("active");
    assertThat(updated.path("data").path("note").asText()).as("the data kept by an add without data").isEqualTo("x");
    assertThat(updated.path("type").asText()).isEqualTo("follows");
  }

  /**
   * Writes sent at once to one list share transactions ({@code GroupCommit}): each still logs the
   * version its own write gave the list — the count row's upsert and the log row's INSERT of one
   * write stay next to each other on the shared connection — and the count moves once per add.
   */
  @Test
  void writesToOneListThatShareATransaction_eachLogTheirOwnListVersion_andTheCountMovesOncePerAdd()
      throws Exception {
    ChangeCursor before = log.end(Set.of()).await();
    Node a = store.createNode("user", json("{\"name\": \"a\"}"), null).await();
    List<Node> targets = new ArrayList<>();
    for (int i = 0; i < 24; i++) {
      targets.add(store.createNode("user", json("{\"name\": \"t" + i + "\"}"), null).await());
    }
    long writes = fixture.backend.telemetry().clientWrites();
    long transactions = fixture.backend.telemetry().clientWriteTransactions();
    List<Future<EdgeResult>> adds = new ArrayList<>();
    targets.forEach(target -> adds.add(store.addEdge(a.id(), "follows", target.id(), null, null, EdgeState.ACTIVE,
        InverseWait.ASYNC)));
    Future.all(adds).await();
    assertThat(fixture.backend.telemetry().clientWrites() - writes).isEqualTo(24);
    assertThat(fixture.backend.telemetry().clientWriteTransactions() - transactions)
        .as("the adds sent at once shared transactions").isLessThan(24);

    String aId = a.id().toString();
    Await.until("the 24 forward adds logged", Duration.ofSeconds(10),
        () -> forwardFrom(readToEnd(before, Set.of(), ChangeLog.MAX_LIMIT).events(), aId).size() >= 24);
    assertThat(forwardFrom(readToEnd(before, Set.of(), ChangeLog.MAX_LIMIT).events(), aId).stream()
            .map(event -> event.path("listVersion").asLong()))
        .as("each add at a version of its own").containsExactlyInAnyOrder(
            LongStream.rangeClosed(1, 24).boxed().toArray(Long[]::new));
    EdgeListHead head = store.getEdgeListHead(a.id(), "follows", 1).await();
    assertThat(head.version()).isEqualTo(24);
    assertThat(head.count()).isEqualTo(24);
  }

  private static List<JsonNode> forwardFrom(List<ChangeEvent> events, String from) {
    return about(events, Set.of(from)).stream().filter(event -> event.path("kind").asText().equals("edge")
        && event.path("copy").asText().equals("forward")).toList();
  }

  @Test
  void aConsumerResumingFromEachEventsCursor_seesEveryChangeOnce_andATypeFilterOnlyItsTypes() throws Exception {
    ChangeCursor before = log.end(Set.of()).await();
    Set<String> ids = ConcurrentHashMap.newKeySet();
    ExecutorService writers = Executors.newFixedThreadPool(4);
    AtomicInteger writes = new AtomicInteger();
    for (int w = 0; w < 4; w++) {
      writers.submit(() -> {
        for (int i = 0; i < 25; i++) {
          Node board = store.createNode("board", json("{\"title\": \"t\"}"), null).await();
          ids.add(board.id().toString());
          store.updateNode(board.id(), json("{\"title\": \"u\"}"), GraphStore.ANY_VERSION).await();
          writes.addAndGet(2);
        }
        return null;
      });
    }
    writers.shutdown();
    assertThat(writers.awaitTermination(60, TimeUnit.SECONDS)).isTrue();
    Await.until("every write logged", Duration.ofSeconds(10),
        () -> about(readToEnd(before, Set.of(), ChangeLog.MAX_LIMIT).events(), ids).size() == writes.get());

    // A consumer that reads pages of 7 and stops after every third event, resuming from that event's cursor.
    List<String> seen = new ArrayList<>();
    ChangeCursor cursor = before;
    while (true) {
      ChangePage page = log.read(cursor, Set.of(), Set.of(), 7).await();
      if (page.events().isEmpty()) {
        break;
      }
      List<ChangeEvent> processed = page.events().subList(0, Math.min(3, page.events().size()));
      for (ChangeEvent event : processed) {
        JsonNode body = parse(event.body());
        if (ids.contains(body.path("id").asText())) {
          seen.add(body.path("id").asText() + " v" + body.path("version").asText());
        }
      }
      cursor = ChangeCursor.parse(processed.get(processed.size() - 1).cursor().toString());
    }
    assertThat(seen).as("every change exactly once").hasSize(writes.get()).doesNotHaveDuplicates();
    for (String id : ids) {
      assertThat(seen.stream().filter(line -> line.startsWith(id + " ")).toList()).containsExactly(id + " v1", id + " v2");
    }

    List<ChangeEvent> users = readToEnd(before, Set.of("user"), 50).events();
    assertThat(users).allMatch(event -> event.typeName().equals("user"));
    assertThat(about(users, ids)).isEmpty();
  }

  @Test
  void aBadCursorOrLimit_isRefused() {
    assertThatThrownBy(() -> ChangeCursor.parse("not a cursor")).isInstanceOf(GraphException.class);
    assertThatThrownBy(() -> log.read(ChangeCursor.START, Set.of(), Set.of(), 0).await())
        .isInstanceOf(GraphException.class);
    assertThatThrownBy(() -> log.read(ChangeCursor.START, Set.of(60000), Set.of(), 5).await())
        .isInstanceOf(GraphException.class).hasMessageContaining("not in the shard map");
    ChangeCursor cursor = ChangeCursor.START.after(3, 17).after(1, 4);
    assertThat(ChangeCursor.parse(cursor.toString())).isEqualTo(cursor);
  }
}
