package io.quiver.cache;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.FieldDef;
import io.quiver.schema.FieldType;
import io.quiver.schema.Fields;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgeBatch;
import io.quiver.store.EdgeId;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeResult;
import io.quiver.store.GraphStore;
import io.quiver.store.EdgeState;
import io.quiver.store.InverseWait;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.quiver.store.Order;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The caches over a real store on real MariaDB hosts, with invalidations between two servers. */
@ExtendWith(GraphInvariants.class)
class CachingGraphStoreTest {
  private static final CacheSettings SETTINGS = CacheSettings.defaults().withPeersPath("/quiver-test/cache-peers");

  private static StoreFixture fixture;
  /**
   * A second server's backend: its own pools and its own change feed, draining nothing (the first
   * server's drainer applies its inverses, announced where the caches here hear them).
   */
  private static StoreFixture elsewhere;
  private static GraphStore store;
  private static CachingGraphStore cached;
  private static AutoCloseable watched;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
    elsewhere = StoreFixture.notDraining();
    store = fixture.store;
    cached = serverOver(store, fixture).invalidationsBetweenServers(fixture.vertx, TestBackend.get().curator())
        .build();
    watched = GraphInvariants.watchCache(() -> cached.differencesFrom(store));
  }

  @AfterAll
  static void stop() throws Exception {
    watched.close();
    cached.close();
    elsewhere.close();
    fixture.close();
  }

  private static CachingGraphStore.Builder serverOver(GraphStore over, StoreFixture backend) {
    return CachingGraphStore.builder(over, backend.backend.changes(), SchemaSource.fixed(TestBackend.get().schema()))
        .settings(SETTINGS);
  }

  /** A server's cache over {@code over}, writing through {@code backend}, with invalidations between servers. */
  private static CachingGraphStore anotherServer(GraphStore over, StoreFixture backend) {
    return serverOver(over, backend).invalidationsBetweenServers(fixture.vertx, TestBackend.get().curator()).build();
  }

  private static long nodeReadQueries() {
    return fixture.backend.telemetry().nodeReadQueries();
  }

  private static long edgeReadQueries() {
    return fixture.backend.telemetry().edgeReadQueries();
  }

  private static GraphException.Code failure(Future<?> future) {
    Throwable cause = future.transform(done -> Future.succeededFuture(done.cause())).await();
    return ((GraphException) cause).code();
  }

  @Test
  void aReadRightAfterAWrite_hitsTheCache_andShowsTheWrite() {
    Node created = cached.createNode("user", json("{\"name\": \"w\"}"), null).await();
    long queries = nodeReadQueries();

    assertThat(cached.getNode(created.id()).await()).isEqualTo(created);
    Node updated = cached.updateNode(created.id(), json("{\"bio\": \"b\"}"), GraphStore.ANY_VERSION).await();
    assertThat(cached.getNode(created.id()).await()).isEqualTo(updated);

    assertThat(nodeReadQueries()).as("no database read").isEqualTo(queries);
  }

  @Test
  void aStaleTolerantRead_answersWhatMemoryHolds_andReadsTheRestBeneath_neverKeepingAReplicasAnswer() {
    Node old = elsewhere.store.createNode("user", json("{\"name\": \"old\"}"), null).await();
    Node newer = elsewhere.store.updateNode(old.id(), json("{\"bio\": \"new\"}"), GraphStore.ANY_VERSION).await();
    // Beneath: a store whose stale-tolerant reads answer the older version, as a replica within its bound may.
    GraphStore lagging = new io.quiver.store.ForwardingGraphStore(store) {
      @Override
      public GraphStore staleTolerant() {
        return new io.quiver.store.ForwardingGraphStore(store) {
          @Override
          public Future<Node> getNode(NodeId id) {
            return Future.succeededFuture(old);
          }
        };
      }
    };
    CachingGraphStore server = serverOver(lagging, fixture).build();
    try {
      assertThat(server.staleTolerant().getNode(old.id()).await()).as("a miss, read beneath").isEqualTo(old);
      assertThat(server.getNode(old.id()).await()).as("not kept: a default read fills from the primary")
          .isEqualTo(newer);
      assertThat(server.staleTolerant().getNode(old.id()).await()).as("what memory holds, as fresh as the primary")
          .isEqualTo(newer);
    } finally {
      server.close();
    }
  }

  @Test
  void aSlowFillFinishingAfterAWrite_neverPutsTheOlderVersionBack() {
    HeldReads slow = new HeldReads(store);
    CachingGraphStore server = serverOver(slow, fixture).build();
    // Written elsewhere, so that no cache here holds it and the first read is a real fill.
    Node node = elsewhere.store.createNode("user", json("{\"name\": \"race\"}"), null).await();

    slow.hold();
    Future<Node> fill = server.getNode(node.id());
    slow.awaitAnswered();
    Node written = server.updateNode(node.id(), json("{\"bio\": \"newer\"}"), GraphStore.ANY_VERSION).await();
    slow.release();

    assertThat(fill.await().version()).as("the slow read saw version 1").isEqualTo(1);
    long queries = nodeReadQueries();
    assertThat(server.getNode(node.id()).await()).as("the cache kept version 2").isEqualTo(written);
    assertThat(nodeReadQueries()).isEqualTo(queries);
  }

  @Test
  void aSlowFillFinishingAfterAnotherServersWrite_isRefused() throws Exception {
    HeldReads slow = new HeldReads(store);
    CachingGraphStore first = anotherServer(slow, fixture);
    CachingGraphStore second = anotherServer(elsewhere.store, elsewhere);
    awaitPeers(first, second);
    Node node = elsewhere.store.createNode("user", json("{\"name\": \"remote\"}"), null).await();

    slow.hold();
    Future<Node> fill = first.getNode(node.id());
    slow.awaitAnswered();
    long heard = first.figures().get(0).invalidationsReceived();
    second.updateNode(node.id(), json("{\"bio\": \"elsewhere\"}"), GraphStore.ANY_VERSION).await();
    awaitReceived(first, heard + 1);
    slow.release();
    fill.await();

    assertThat(first.getNode(node.id()).await().version()).isEqualTo(2);
    first.close();
    second.close();
  }

  @Test
  void concurrentMissesOnOneNode_causeOneQuery() {
    Node node = store.createNode("user", json("{\"name\": \"n\"}"), null).await();
    CachingGraphStore server = serverOver(new HeldReads(store), fixture).build();
    long before = nodeReadQueries();

    List<Future<Node>> reads = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      reads.add(server.getNode(node.id()));
    }
    Future.all(reads).await();

    assertThat(nodeReadQueries() - before).isEqualTo(1);
    assertThat(reads).allSatisfy(read -> assertThat(read.result()).isEqualTo(node));
  }

  @Test
  void missingAndDeletedNodes_areAnsweredWithoutAStaleCopy() {
    NodeId ghost = NodeId.of(1, 1, NodeId.MAX_LOCAL - 77);
    assertThat(failure(cached.getNode(ghost))).isEqualTo(GraphException.Code.NOT_FOUND);
    long queries = nodeReadQueries();
    assertThat(failure(cached.getNode(ghost))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(nodeReadQueries()).as("a short-lived negative entry").isEqualTo(queries);

    Node node = cached.createNode("user", json("{\"name\": \"bye\"}"), null).await();
    cached.deleteNode(node.id()).await();
    assertThat(failure(cached.getNode(node.id()))).isEqualTo(GraphException.Code.NOT_FOUND);
  }

  @Test
  void theEdgeWindow_servesPagesInEitherOrder_andStaysCorrectAcrossAddsAndRemoves() {
    NodeId board = store.createNode("board", json("{\"title\": \"w\"}"), null).await().id();
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < 30; i++) {
      pins.add(store.createNode("pin", json("{\"link\": \"l\"}"), board).await().id());
      store.addEdge(board, "board_has_pins", pins.get(i), (long) (i % 10), null).await();
    }
    assertPagesEqualTheStore(board, EdgeQuery.firstPage(7));
    assertPagesEqualTheStoreFromCacheOnly(board, EdgeQuery.firstPage(7));
    assertPagesEqualTheStoreFromCacheOnly(board, new EdgeQuery(4, null, 2, Order.ASC, 2L, 8L));
    long queries = edgeReadQueries();
    assertThat(cached.countEdges(board, "board_has_pins").await()).isEqualTo(30);
    assertThat(edgeReadQueries()).as("the count comes from memory").isEqualTo(queries);

    cached.addEdge(board, "board_has_pins", store.createNode("pin", json("{\"link\": \"n\"}"), board).await().id(),
        100L, null).await();
    cached.removeEdge(board, "board_has_pins", pins.get(3)).await();
    store.removeEdge(board, "board_has_pins", pins.get(4)).await();

    assertThat(cached.countEdges(board, "board_has_pins").await()).isEqualTo(29);
    assertPagesEqualTheStore(board, EdgeQuery.firstPage(7));
    assertPagesEqualTheStore(board, new EdgeQuery(5, null, 0, Order.ASC, null, null));
  }

  @Test
  void committedEdgeWrites_updateTheCachedWindowInPlace_andItsPagesCountAndEdgesComeFromMemory() {
    NodeId board = store.createNode("board", json("{\"title\": \"in place\"}"), null).await().id();
    List<NodeId> pins = linkedPins(store, board, 4);
    assertThat(cached.countEdges(board, "board_has_pins").await()).isEqualTo(4);
    NodeId added = store.createNode("pin", json("{\"link\": \"new\"}"), board).await().id();
    long queries = edgeReadQueries();

    cached.addEdge(board, "board_has_pins", added, 10L, null).await();
    cached.removeEdge(board, "board_has_pins", pins.get(0)).await();
    cached.addEdge(board, "board_has_pins", pins.get(1), 20L, json("{\"note\": \"moved up\"}")).await();
    EdgePage page = cached.getEdges(board, "board_has_pins", EdgeQuery.firstPage(10)).await();
    long count = cached.countEdges(board, "board_has_pins").await();
    Edge single = cached.getEdge(board, "board_has_pins", pins.get(2)).await();
    GraphException.Code gone = failure(cached.getEdge(board, "board_has_pins", pins.get(0)));

    assertThat(edgeReadQueries()).as("every read after the writes came from memory").isEqualTo(queries);
    assertThat(page.edges()).extracting(Edge::to).containsExactly(pins.get(1), added, pins.get(3), pins.get(2));
    assertThat(page).isEqualTo(store.getEdges(board, "board_has_pins", EdgeQuery.firstPage(10)).await());
    assertThat(count).isEqualTo(4);
    assertThat(single).isEqualTo(store.getEdge(board, "board_has_pins", pins.get(2)).await());
    assertThat(gone).isEqualTo(GraphException.Code.NOT_FOUND);
  }

  @Test
  void aMultiGet_ofTargetsTheWindowHolds_comesFromMemory_andOneItDoesNotHold_fromMySql() {
    NodeId board = store.createNode("board", json("{\"title\": \"multi\"}"), null).await().id();
    List<NodeId> pins = linkedPins(store, board, 4);
    NodeId unlinked = store.createNode("pin", json("{\"link\": \"u\"}"), board).await().id();
    assertThat(cached.countEdges(board, "board_has_pins").await()).isEqualTo(4);

    long queries = edgeReadQueries();
    List<Edge> held = cached.getEdgesTo(board, "board_has_pins", List.of(pins.get(0), pins.get(2))).await();
    assertThat(edgeReadQueries()).as("held by the window: from memory").isEqualTo(queries);
    assertThat(held).isEqualTo(store.getEdgesTo(board, "board_has_pins", List.of(pins.get(2), pins.get(0))).await());

    queries = edgeReadQueries();
    List<Edge> mixed = cached.getEdgesTo(board, "board_has_pins", List.of(pins.get(1), unlinked)).await();
    assertThat(edgeReadQueries()).as("a target without an edge: from MySQL").isEqualTo(queries + 1);
    assertThat(mixed).extracting(Edge::to).containsExactly(pins.get(1));
  }

  @Test
  void singleEdges_presentOrAbsent_areKeptWhenAskedAgain_andFollowThisServersWritesInPlace() {
    NodeId board = store.createNode("board", json("{\"title\": \"points\"}"), null).await().id();
    NodeId linked = store.createNode("pin", json("{\"link\": \"l\"}"), board).await().id();
    NodeId unlinked = store.createNode("pin", json("{\"link\": \"u\"}"), board).await().id();
    // Written through another server's backend, whose writes this cache does not hear: nothing is held yet.
    elsewhere.store.addEdge(board, "board_has_pins", linked, 5L, null).await();
    CacheFigures before = pointFigures(cached);

    long queries = edgeReadQueries();
    Edge edge = cached.getEdge(board, "board_has_pins", linked).await();
    assertThat(edgeReadQueries()).as("a list asked about the first time: read plainly, nothing kept")
        .isEqualTo(queries + 1);
    assertThat(failure(cached.getEdge(board, "board_has_pins", unlinked))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(edgeReadQueries()).as("asked again: read with the list's version (whole: it is short), and kept")
        .isEqualTo(queries + 2);
    assertThat(cached.getEdge(board, "board_has_pins", linked).await()).isEqualTo(edge);
    assertThat(failure(cached.getEdge(board, "board_has_pins", unlinked))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(edgeReadQueries()).as("both known now").isEqualTo(queries + 2);

    queries = edgeReadQueries();
    assertThat(cached.getEdge(board, "board_has_pins", linked).await()).isEqualTo(edge);
    assertThat(failure(cached.getEdge(board, "board_has_pins", unlinked))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(cached.getEdgesTo(board, "board_has_pins", List.of(unlinked, linked)).await()).containsExactly(edge);
    assertThat(cached.getEdgesBatch(List.of(new EdgeId(board, "board_has_pins", unlinked))).await().missing())
        .hasSize(1);
    Edge added = cached.addEdge(board, "board_has_pins", unlinked, 9L, json("{\"note\": \"now\"}")).await();
    assertThat(cached.getEdge(board, "board_has_pins", unlinked).await()).isEqualTo(added);
    assertThat(edgeReadQueries()).as("answered from memory, the write applied in place").isEqualTo(queries);

    CacheFigures after = pointFigures(cached);
    assertThat(after.hits() - before.hits()).isEqualTo(8);
    assertThat(after.misses() - before.misses()).isEqualTo(2);
    assertThat(cached.getEdge(board, "board_has_pins", unlinked).await())
        .isEqualTo(store.getEdge(board, "board_has_pins", unlinked).await());
  }

  @Test
  void aShortListsSingleEdges_areReadWhole_andAnswerAnyTarget_activeArchivedOrAbsent_fromMemory() {
    NodeId board = store.createNode("board", json("{\"title\": \"whole\"}"), null).await().id();
    List<NodeId> pins = pinsOn(board, 5);
    // Written through another server's backend: nothing is held of the list yet. One write per
    // edge (the archived one added archived): this cache hears no invalidation from that server,
    // so a second write to an inverse list it began to follow would leave it behind.
    elsewhere.store.addEdge(board, "board_has_pins", pins.get(0), 1L, null).await();
    elsewhere.store.addEdge(board, "board_has_pins", pins.get(1), 2L, json("{\"note\": \"kept\"}")).await();
    elsewhere.store.addEdge(board, "board_has_pins", pins.get(2), 3L, null, EdgeState.ARCHIVED, InverseWait.ASYNC)
        .await();
    // Asked about twice: the second time its points are filled, and the list is short, so whole.
    cached.getEdge(board, "board_has_pins", pins.get(0)).await();
    cached.getEdge(board, "board_has_pins", pins.get(0)).await();

    Edge stored = store.getEdge(board, "board_has_pins", pins.get(1)).await();
    long queries = edgeReadQueries();
    assertThat(cached.getEdge(board, "board_has_pins", pins.get(1)).await()).isEqualTo(stored);
    assertThat(cached.getEdge(board, "board_has_pins", pins.get(2)).await().state()).isEqualTo(EdgeState.ARCHIVED);
    assertThat(failure(cached.getEdge(board, "board_has_pins", pins.get(3)))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(cached.getEdgesTo(board, "board_has_pins", List.of(pins.get(4), pins.get(2), pins.get(1)),
        java.util.EnumSet.allOf(EdgeState.class)).await()).extracting(Edge::to).containsExactly(pins.get(2), pins.get(1));
    assertThat(edgeReadQueries() - queries).as("edges never asked about, present or not: from memory").isZero();
  }

  @Test
  void aBatchAcrossLists_readsTheShortListsAskedAboutLatelyWhole_andAnswersTheirOtherTargetsFromMemory() {
    NodeId first = store.createNode("board", json("{\"title\": \"one\"}"), null).await().id();
    NodeId second = store.createNode("board", json("{\"title\": \"two\"}"), null).await().id();
    NodeId longer = store.createNode("board", json("{\"title\": \"long\"}"), null).await().id();
    // Linked through another server's backend: nothing is held of the lists yet.
    List<NodeId> firstPins = linkedPins(elsewhere.store, first, 3);
    List<NodeId> secondPins = linkedPins(elsewhere.store, second, 2);
    List<NodeId> longPins = linkedPins(elsewhere.store, longer, CachingGraphStore.WHOLE_LIST + 1);
    List<EdgeId> asked = List.of(new EdgeId(first, "board_has_pins", firstPins.get(0)),
        new EdgeId(second, "board_has_pins", secondPins.get(0)), new EdgeId(longer, "board_has_pins", longPins.get(0)));

    long queries = edgeReadQueries();
    cached.getEdgesBatch(asked).await();
    long firstTime = edgeReadQueries() - queries;
    cached.getEdgesBatch(asked).await();
    assertThat(edgeReadQueries() - queries).as("asked again: read again, with versions, and kept")
        .isEqualTo(2 * firstTime);

    queries = edgeReadQueries();
    EdgeBatch others = cached.getEdgesBatch(List.of(new EdgeId(first, "board_has_pins", firstPins.get(2)),
        new EdgeId(second, "board_has_pins", secondPins.get(1)), new EdgeId(first, "board_has_pins", secondPins.get(0)),
        new EdgeId(longer, "board_has_pins", longPins.get(0)))).await();
    assertThat(edgeReadQueries() - queries).as("targets of the short lists never asked about, present or not,"
        + " and the long list's pair asked about: from memory").isZero();
    assertThat(others.edges()).extracting(Edge::to).containsExactly(firstPins.get(2), secondPins.get(1), longPins.get(0));
    assertThat(others.missing()).containsExactly(new EdgeId(first, "board_has_pins", secondPins.get(0)));
    assertThat(cached.getEdge(longer, "board_has_pins", longPins.get(1)).await().to()).isEqualTo(longPins.get(1));
    assertThat(edgeReadQueries() - queries).as("the long list's other target: from MySQL").isEqualTo(1);
  }

  @Test
  void aListTooLongToReadWhole_keepsOnlyTheTargetsAskedAbout() {
    NodeId board = store.createNode("board", json("{\"title\": \"long\"}"), null).await().id();
    // Linked through another server's backend: nothing is held of the list yet.
    List<NodeId> pins = linkedPins(elsewhere.store, board, CachingGraphStore.WHOLE_LIST + 1);
    cached.getEdge(board, "board_has_pins", pins.get(0)).await();
    cached.getEdge(board, "board_has_pins", pins.get(0)).await();

    long queries = edgeReadQueries();
    assertThat(cached.getEdge(board, "board_has_pins", pins.get(0)).await().to()).isEqualTo(pins.get(0));
    assertThat(edgeReadQueries()).as("the target asked about: kept").isEqualTo(queries);
    assertThat(cached.getEdge(board, "board_has_pins", pins.get(7)).await().to()).isEqualTo(pins.get(7));
    assertThat(edgeReadQueries()).as("another: from MySQL").isEqualTo(queries + 1);
  }

  @Test
  void aWriteToAListNothingIsHeldOf_isReadBackFromMemory() {
    NodeId board = store.createNode("board", json("{\"title\": \"write then read\"}"), null).await().id();
    NodeId pin = store.createNode("pin", json("{\"link\": \"w\"}"), board).await().id();
    NodeId other = store.createNode("pin", json("{\"link\": \"o\"}"), board).await().id();

    Edge written = cached.addEdge(board, "board_has_pins", pin, 4L, null).await();
    cached.addEdge(board, "board_has_pins", other, 5L, null).await();
    cached.removeEdge(board, "board_has_pins", other).await();
    long queries = edgeReadQueries();

    assertThat(cached.getEdge(board, "board_has_pins", pin).await()).isEqualTo(written);
    assertThat(failure(cached.getEdge(board, "board_has_pins", other))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(edgeReadQueries()).as("both known from the writes themselves").isEqualTo(queries);
  }

  @Test
  void aSlowPointFillFinishingAfterAWrite_neverPutsTheOlderEdgeBack() throws Exception {
    HeldReads slow = new HeldReads(store);
    CachingGraphStore server = serverOver(slow, fixture).build();
    NodeId board = elsewhere.store.createNode("board", json("{\"title\": \"race\"}"), null).await().id();
    NodeId pin = elsewhere.store.createNode("pin", json("{\"link\": \"r\"}"), board).await().id();
    elsewhere.store.addEdge(board, "board_has_pins", pin, 1L, json("{\"note\": \"old\"}")).await();

    // Asked once first, so that the held read is one the cache keeps (Doorkeeper).
    server.getEdge(board, "board_has_pins", pin).await();
    slow.hold();
    Future<Edge> fill = server.getEdge(board, "board_has_pins", pin);
    slow.awaitAnswered();
    Edge written = server.addEdge(board, "board_has_pins", pin, 2L, json("{\"note\": \"new\"}")).await();
    slow.release();

    assertThat(fill.await().sequence()).as("the slow read saw the old edge").isEqualTo(1);
    assertThat(server.getEdge(board, "board_has_pins", pin).await()).as("the cache kept the new one").isEqualTo(written);
    // The inverse list's points follow the drainer, which may still be writing: settled.
    assertThat(GraphInvariants.settled(() -> server.differencesFrom(store))).isEmpty();
    server.close();
  }

  @Test
  void anotherServersWrite_dropsWhatIsKnownOfSingleEdgesOfItsList() throws Exception {
    CachingGraphStore first = anotherServer(store, fixture);
    CachingGraphStore second = anotherServer(elsewhere.store, elsewhere);
    awaitPeers(first, second);
    NodeId board = store.createNode("board", json("{\"title\": \"remote\"}"), null).await().id();
    NodeId pin = store.createNode("pin", json("{\"link\": \"p\"}"), board).await().id();
    assertThat(failure(first.getEdge(board, "board_has_pins", pin))).isEqualTo(GraphException.Code.NOT_FOUND);

    long heard = first.figures().get(0).invalidationsReceived();
    Edge written = second.addEdge(board, "board_has_pins", pin, 3L, null).await();
    awaitReceived(first, heard + 1);

    assertThat(first.getEdge(board, "board_has_pins", pin).await()).isEqualTo(written);
    first.close();
    second.close();
  }

  @Test
  void theInverseApplier_updatesTheInverseListsWindowInPlace() {
    NodeId board = store.createNode("board", json("{\"title\": \"inverse\"}"), null).await().id();
    NodeId pin = store.createNode("pin", json("{\"link\": \"l\"}"), board).await().id();
    assertThat(cached.countEdges(pin, "pin_owned_by_board").await()).isZero();
    long queries = edgeReadQueries();

    EdgeResult written = cached.addEdge(board, "board_has_pins", pin, null, null, InverseWait.APPLIED).await();

    assertThat(written.inverse()).isEqualTo(EdgeResult.Inverse.APPLIED);
    assertThat(cached.countEdges(pin, "pin_owned_by_board").await()).isEqualTo(1);
    assertThat(cached.getEdges(pin, "pin_owned_by_board", EdgeQuery.firstPage(5)).await().edges())
        .extracting(Edge::to).containsExactly(board);
    assertThat(edgeReadQueries()).as("the inverse list was updated, not dropped").isEqualTo(queries);
  }

  @Test
  void windowsUpdatedInPlace_equalWhatMySqlHolds_afterARandomMixOfConcurrentWritesAndFills() throws Exception {
    // A small window, so that partial windows, edges moving in and out of them, and refills all happen.
    CacheSettings small = new CacheSettings(true, SETTINGS.nodeMaxBytes(), 6, SETTINGS.edgeMaxBytes(),
        SETTINGS.valueTtl(), SETTINGS.peersPath(), SETTINGS.advertiseHost(), SETTINGS.staleBound());
    CachingGraphStore server = CachingGraphStore.builder(store, fixture.backend.changes(),
        SchemaSource.fixed(TestBackend.get().schema())).settings(small).build();
    List<NodeId> boards = new ArrayList<>();
    List<NodeId> pins = new ArrayList<>();
    for (int b = 0; b < 3; b++) {
      boards.add(store.createNode("board", json("{\"title\": \"mix\"}"), null).await().id());
    }
    for (int p = 0; p < 14; p++) {
      pins.add(store.createNode("pin", json("{\"link\": \"l\"}"), boards.get(0)).await().id());
    }
    java.util.Random random = new java.util.Random(20261122);
    long readsFromMemory = 0;
    long reads = 0;
    for (int round = 0; round < 25; round++) {
      List<Future<?>> concurrently = new ArrayList<>();
      for (int op = 0; op < 24; op++) {
        NodeId board = boards.get(random.nextInt(boards.size()));
        NodeId pin = pins.get(random.nextInt(pins.size()));
        int dice = random.nextInt(11);
        if (dice < 3) {
          Long sequence = random.nextBoolean() ? null : (long) random.nextInt(40);
          concurrently.add(server.addEdge(board, "board_has_pins", pin, sequence,
              random.nextBoolean() ? null : json("{\"note\": \"n" + random.nextInt(5) + "\"}")));
        } else if (dice < 5) {
          concurrently.add(server.removeEdge(board, "board_has_pins", pin));
        } else if (dice == 10) {
          // Of an edge not there (or not archived), refused: NOT_FOUND.
          concurrently.add((random.nextBoolean() ? server.archiveEdge(board, "board_has_pins", pin, InverseWait.ASYNC)
              : server.restoreEdge(board, "board_has_pins", pin, InverseWait.ASYNC))
              .recover(refused -> Future.succeededFuture()));
        } else {
          long before = edgeReadQueries();
          Future<?> read = switch (dice) {
            case 5, 6 -> server.getEdges(board, "board_has_pins", EdgeQuery.firstPage(4));
            case 7 -> server.countEdges(board, "board_has_pins");
            case 8 -> random.nextBoolean()
                ? server.getEdgesBatch(List.of(new EdgeId(board, "board_has_pins", pin),
                    new EdgeId(boards.get(random.nextInt(boards.size())), "board_has_pins", pins.get(0))))
                : server.getEdgesTo(board, "board_has_pins", List.of(pin, pins.get(1)),
                    java.util.EnumSet.allOf(io.quiver.store.EdgeState.class));
            default -> server.getEdge(board, "board_has_pins", pin).recover(missing -> Future.succeededFuture());
          };
          reads++;
          readsFromMemory += edgeReadQueries() == before ? 1 : 0;
          concurrently.add(read);
        }
      }
      Future.join(new ArrayList<>(concurrently)).await();
    }

    // The inverse lists' points follow the drainer, which may still be writing: settled, as after every test.
    assertThat(GraphInvariants.settled(() -> server.differencesFrom(store))).isEmpty();
    System.out.printf("random mix: %d of %d edge reads answered without a query%n", readsFromMemory, reads);
    server.close();
  }

  @Test
  void aCacheStartedAfterTheSchemaWasRead_keepsWhatItWasWrittenBeforeItsFirstRead() {
    CachingGraphStore server = serverOver(store, fixture).build();
    Node node = server.createNode("user", json("{\"name\": \"first\"}"), null).await();
    long queries = nodeReadQueries();

    assertThat(server.getNode(node.id()).await()).isEqualTo(node);
    assertThat(nodeReadQueries()).as("the first read did not clear the cache").isEqualTo(queries);
    server.close();
  }

  @Test
  void aListLongerThanTheWindow_servesItsNewestPagesFromMemory_andTheRestFromMySql() {
    NodeId user = store.createNode("user", json("{\"name\": \"many\"}"), null).await().id();
    for (int i = 0; i < 130; i++) {
      NodeId other = store.createNode("user", json("{\"name\": \"o\"}"), user).await().id();
      store.addEdge(user, "follows", other, (long) i, null).await();
    }
    cached.getEdges(user, "follows", EdgeQuery.firstPage(20)).await();
    long queries = edgeReadQueries();
    cached.getEdges(user, "follows", EdgeQuery.firstPage(20)).await();
    assertThat(edgeReadQueries()).as("the newest page, again: from memory").isEqualTo(queries);
    cached.getEdges(user, "follows", new EdgeQuery(20, null, 0, Order.ASC, null, null)).await();
    assertThat(edgeReadQueries()).as("the oldest page, past the window: from MySQL").isEqualTo(queries + 1);
    assertPagesEqualTheStore(user, "follows", EdgeQuery.firstPage(20));
    assertPagesEqualTheStore(user, "follows", new EdgeQuery(20, null, 0, Order.ASC, null, null));
  }

  @Test
  void aListPagedPastItsWindow_isReadDeeperOnce_andThenItsDeepPagesComeFromMemory() {
    NodeId user = store.createNode("user", json("{\"name\": \"deep\"}"), null).await().id();
    for (int i = 0; i < 250; i++) {
      NodeId other = store.createNode("user", json("{\"name\": \"d\"}"), user).await().id();
      store.addEdge(user, "follows", other, (long) i, null).await();
    }
    // Edges 100 to 149, then 150 to 189 after its cursor: all within a window read to 200.
    EdgeQuery deepPage = new EdgeQuery(50, null, 100, Order.DESC, null, null);
    assertThat(cached.getEdges(user, "follows", EdgeQuery.firstPage(10)).await().edges()).hasSize(10);

    long queries = edgeReadQueries();
    EdgePage first = cached.getEdges(user, "follows", deepPage).await();
    assertThat(edgeReadQueries()).as("one deeper read of the window").isEqualTo(queries + 1);
    queries = edgeReadQueries();
    EdgePage again = cached.getEdges(user, "follows", deepPage).await();
    EdgeQuery nextPage = new EdgeQuery(40, first.next(), 0, Order.DESC, null, null);
    EdgePage next = cached.getEdges(user, "follows", nextPage).await();
    assertThat(edgeReadQueries()).as("from memory").isEqualTo(queries);

    assertThat(again).isEqualTo(first).isEqualTo(store.getEdges(user, "follows", deepPage).await());
    assertThat(next).isEqualTo(store.getEdges(user, "follows", nextPage).await());
  }

  @Test
  void aWriteThroughOneServer_isReadThroughTheOtherWithin100Milliseconds() throws Exception {
    CachingGraphStore first = anotherServer(store, fixture);
    CachingGraphStore second = anotherServer(elsewhere.store, elsewhere);
    awaitPeers(first, second);
    Node node = first.createNode("user", json("{\"name\": \"two\"}"), null).await();
    NodeId other = store.createNode("user", json("{\"name\": \"o\"}"), null).await().id();
    assertThat(second.getNode(node.id()).await().version()).isEqualTo(1);
    assertThat(second.countEdges(node.id(), "follows").await()).isZero();

    long started = System.nanoTime();
    first.updateNode(node.id(), json("{\"bio\": \"new\"}"), GraphStore.ANY_VERSION).await();
    first.addEdge(node.id(), "follows", other, null, null).await();
    while (second.getNode(node.id()).await().version() != 2 || second.countEdges(node.id(), "follows").await() != 1) {
      Thread.sleep(1);
    }
    Duration took = Duration.ofNanos(System.nanoTime() - started);
    System.out.printf("a write through one server was read through the other after %.1f ms%n", took.toNanos() / 1e6);
    assertThat(took).isLessThan(Duration.ofMillis(100));
    assertThat(second.figures().get(0).invalidationsReceived()).isPositive();
    first.close();
    second.close();
  }

  @Test
  void aSchemaChange_forgetsOnlyTheTypesItChanged_andUntouchedTypesKeepEveryHit() {
    java.util.concurrent.atomic.AtomicReference<Schema> schema = new java.util.concurrent.atomic.AtomicReference<>(
        TestBackend.get().schema());
    CachingGraphStore server = CachingGraphStore.builder(store, fixture.backend.changes(), schema::get)
        .settings(SETTINGS).build();
    List<NodeId> users = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      users.add(store.createNode("user", json("{\"name\": \"u" + i + "\"}"), null).await().id());
      store.addEdge(users.get(0), "follows", users.get(i), null, null).await();
    }
    NodeId board = store.createNode("board", json("{\"title\": \"s\"}"), null).await().id();
    NodeId pin = store.createNode("pin", json("{\"link\": \"s\"}"), board).await().id();
    store.addEdge(board, "board_has_pins", pin, null, null).await();
    Runnable untouched = () -> {
      users.forEach(user -> server.getNode(user).await());
      server.getEdges(users.get(0), "follows", EdgeQuery.firstPage(10)).await();
      server.getEdge(users.get(0), "follows", users.get(3)).await();
    };
    // The single edge before the page, so that no window refilled first answers it.
    Runnable changed = () -> {
      server.getNode(pin).await();
      server.getEdge(board, "board_has_pins", pin).await();
      server.getEdges(board, "board_has_pins", EdgeQuery.firstPage(10)).await();
    };
    untouched.run();
    changed.run();

    Schema before = schema.get();
    NodeType pinType = before.nodeType("pin").orElseThrow();
    Map<String, FieldDef> pinFields = new java.util.HashMap<>(pinType.fields().definitions());
    pinFields.put("colour", new FieldDef(FieldType.STRING, false, com.fasterxml.jackson.databind.node.TextNode.valueOf("red"),
        null));
    EdgeType hasPins = before.edgeType("board_has_pins").orElseThrow();
    Map<String, FieldDef> edgeFields = new java.util.HashMap<>(hasPins.fields().definitions());
    edgeFields.put("weight", new FieldDef(FieldType.INTEGER, false, com.fasterxml.jackson.databind.node.IntNode.valueOf(1),
        null));
    Map<String, NodeType> nodeTypes = new java.util.HashMap<>(before.nodeTypes());
    nodeTypes.put("pin", new NodeType("pin", pinType.id(), new Fields(pinFields, pinType.fields().strict())));
    Map<String, EdgeType> edgeTypes = new java.util.HashMap<>(before.edgeTypes());
    edgeTypes.put("board_has_pins", new EdgeType("board_has_pins", hasPins.id(), hasPins.from(), hasPins.to(),
        hasPins.inverse(), new Fields(edgeFields, hasPins.fields().strict())));
    schema.set(new Schema(before.version() + 1, nodeTypes, edgeTypes));

    List<CacheFigures> figuresBefore = server.figures();
    long nodeQueries = nodeReadQueries();
    long edgeQueries = edgeReadQueries();
    untouched.run();
    List<CacheFigures> afterUntouched = server.figures();
    assertThat(nodeReadQueries()).as("users: from memory").isEqualTo(nodeQueries);
    assertThat(edgeReadQueries()).as("follows: from memory").isEqualTo(edgeQueries);
    for (int cache = 0; cache < figuresBefore.size(); cache++) {
      assertThat(afterUntouched.get(cache).misses()).as(afterUntouched.get(cache).cache() + ": no miss")
          .isEqualTo(figuresBefore.get(cache).misses());
    }

    changed.run();
    assertThat(nodeReadQueries()).as("the pin read again").isEqualTo(nodeQueries + 1);
    assertThat(edgeReadQueries()).as("its board's window and single edge read again").isEqualTo(edgeQueries + 2);
    changed.run();
    assertThat(nodeReadQueries()).as("and kept again").isEqualTo(nodeQueries + 1);
    assertThat(edgeReadQueries()).isEqualTo(edgeQueries + 2);
    server.close();
  }

  @Test
  void aNegativeEntry_expiresAfterItsTtl_onTheCachesOwnTicker() {
    FakeTicker ticker = new FakeTicker();
    CachingGraphStore server = serverOver(store, fixture).ticker(ticker).build();
    NodeId ghost = NodeId.of(2, 1, NodeId.MAX_LOCAL - 91);
    assertThat(failure(server.getNode(ghost))).isEqualTo(GraphException.Code.NOT_FOUND);
    long queries = nodeReadQueries();

    ticker.advance(CacheSettings.ABSENT_TTL.minusMillis(1));
    assertThat(failure(server.getNode(ghost))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(nodeReadQueries()).as("still known to be absent").isEqualTo(queries);

    ticker.advance(Duration.ofMillis(2));
    assertThat(failure(server.getNode(ghost))).isEqualTo(GraphException.Code.NOT_FOUND);
    assertThat(nodeReadQueries()).as("expired: asked MySQL again").isEqualTo(queries + 1);
    server.close();
  }

  /** A ticker the test moves by hand. */
  private static final class FakeTicker implements com.github.benmanes.caffeine.cache.Ticker {
    private final java.util.concurrent.atomic.AtomicLong nanos = new java.util.concurrent.atomic.AtomicLong();

    @Override
    public long read() {
      return nanos.get();
    }

    void advance(Duration by) {
      nanos.addAndGet(by.toNanos());
    }
  }

  /** {@code count} new pins on {@code board}'s shard, not linked. */
  private static List<NodeId> pinsOn(NodeId board, int count) {
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      pins.add(store.createNode("pin", json("{\"link\": \"p\"}"), board).await().id());
    }
    return pins;
  }

  /** {@link #pinsOn} pins, each linked from {@code board} through {@code writer} with its index as sequence. */
  private static List<NodeId> linkedPins(GraphStore writer, NodeId board, int count) {
    List<NodeId> pins = pinsOn(board, count);
    for (int i = 0; i < count; i++) {
      writer.addEdge(board, "board_has_pins", pins.get(i), (long) i, null).await();
    }
    return pins;
  }

  private static CacheFigures pointFigures(CachingGraphStore server) {
    return server.figures().stream().filter(figures -> figures.cache().equals("edge_points")).findFirst().orElseThrow();
  }

  private static void awaitReceived(CachingGraphStore server, long atLeast) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    while (server.figures().get(0).invalidationsReceived() < atLeast) {
      assertThat(System.nanoTime()).as("the invalidation arrives").isLessThan(deadline);
      Thread.sleep(1);
    }
  }

  private static void awaitPeers(CachingGraphStore... servers) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(5).toNanos();
    for (CachingGraphStore server : servers) {
      while (server.peerCount() < servers.length - 1) {
        assertThat(System.nanoTime()).as("peers find each other").isLessThan(deadline);
        Thread.sleep(10);
      }
    }
  }

  private static void assertPagesEqualTheStore(NodeId from, EdgeQuery query) {
    assertPagesEqualTheStore(from, "board_has_pins", query);
  }

  private static void assertPagesEqualTheStore(NodeId from, String type, EdgeQuery query) {
    Cursor cursor = null;
    do {
      EdgePage expected = store.getEdges(from, type, query.after(cursor)).await();
      EdgePage actual = cached.getEdges(from, type, query.after(cursor)).await();
      assertThat(actual.edges()).extracting(Edge::to).isEqualTo(expected.edges().stream().map(Edge::to).toList());
      assertThat(actual.next()).isEqualTo(expected.next());
      cursor = expected.next();
    } while (cursor != null);
  }

  /** Every page of the query comes from the window, and equals what MySQL answers. */
  private static void assertPagesEqualTheStoreFromCacheOnly(NodeId from, EdgeQuery query) {
    Cursor cursor = null;
    List<List<NodeId>> pages = new ArrayList<>();
    long before = edgeReadQueries();
    do {
      EdgePage page = cached.getEdges(from, "board_has_pins", query.after(cursor)).await();
      pages.add(page.edges().stream().map(Edge::to).toList());
      cursor = page.next();
    } while (cursor != null);
    assertThat(edgeReadQueries()).as("pages served from memory").isEqualTo(before);
    List<List<NodeId>> expected = new ArrayList<>();
    cursor = null;
    do {
      EdgePage page = store.getEdges(from, "board_has_pins", query.after(cursor)).await();
      expected.add(page.edges().stream().map(Edge::to).toList());
      cursor = page.next();
    } while (cursor != null);
    assertThat(pages).isEqualTo(expected);
  }
}
