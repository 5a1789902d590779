package io.quiver.cache;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.schema.SchemaSource;
import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.GraphStore;
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
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** The caches over a real store on real MariaDB hosts, with invalidations between two servers. */
@ExtendWith(GraphInvariants.class)
class CachingGraphStoreTest {
  private static final CacheSettings SETTINGS = CacheSettings.defaults().withPeersPath("/quiver-test/cache-peers");

  private static StoreFixture fixture;
  /** A second server's backend: its own pools and its own change feed. */
  private static StoreFixture elsewhere;
  private static GraphStore store;
  private static CachingGraphStore cached;
  private static AutoCloseable watched;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
    elsewhere = new StoreFixture();
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
  void aSlowFillFinishingAfterAWrite_neverPutsTheOlderVersionBack() {
    HeldReads slow = new HeldReads(store);
    CachingGraphStore server = serverOver(slow, fixture).build();
    // Written elsewhere, so that no cache here holds it and the first read is a real fill.
    Node node = elsewhere.store.createNode("user", json("{\"name\": \"race\"}"), null).await();

    slow.hold();
    Future<Node> fill = server.getNode(node.id());
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
  void aListLongerThanTheWindow_servesItsNewestPagesFromMemory_andTheRestFromMySql() {
    NodeId user = store.createNode("user", json("{\"name\": \"many\"}"), null).await().id();
    for (int i = 0; i < 130; i++) {
      NodeId other = store.createNode("user", json("{\"name\": \"o\"}"), user).await().id();
      store.addEdge(user, "follows", other, (long) i, null).await();
    }
    assertPagesEqualTheStore(user, "follows", EdgeQuery.firstPage(20));
    assertPagesEqualTheStore(user, "follows", new EdgeQuery(20, null, 0, Order.ASC, null, null));
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
