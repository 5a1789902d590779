package io.quiver.store;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException.Code;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.StoreFixture;
import io.vertx.core.Future;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.stream.IntStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * What every {@link GraphStore} must do, run against each implementation (the uncached store
 * here, the cached one in the cache module; a later one adds a subclass) over real MariaDB hosts
 * and a real ZooKeeper. The semantic cases follow LinkBench's store tests: deleted versus
 * present, newest-first lists, counts that ignore deleted edges, overwrites that update every
 * field, and payloads stored verbatim. After each test the {@link GraphInvariants} are checked
 * against the hosts.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
public abstract class GraphStoreContractTest {
  protected StoreFixture fixture;
  protected GraphStore store;

  @RegisterExtension
  final GraphInvariants invariants = new GraphInvariants();

  /** The backend the implementation runs over: as built by default, unless a subclass sets it otherwise. */
  protected StoreFixture fixture() throws Exception {
    return new StoreFixture();
  }

  /** The implementation under test, over the fixture's backend. */
  protected abstract GraphStore open(StoreFixture fixture) throws Exception;

  /** Releases what {@link #open} took; the fixture closes the backend itself. */
  protected void close(GraphStore store) throws Exception {
  }

  @BeforeAll
  void start() throws Exception {
    fixture = fixture();
    store = open(fixture);
  }

  @AfterAll
  void stop() throws Exception {
    close(store);
    fixture.close();
  }

  private Node user(String name) {
    return store.createNode("user", json("{\"name\": \"" + name + "\"}"), null).await();
  }

  private Node board(Node near) {
    return store.createNode("board", json("{\"title\": \"b\"}"), near == null ? null : near.id()).await();
  }

  private Node pin(String link) {
    return store.createNode("pin", json("{\"link\": \"" + link + "\"}"), null).await();
  }

  private static GraphException failure(Future<?> future) {
    Throwable cause = future.otherwiseEmpty().eventually(() -> Future.succeededFuture()).transform(
        ar -> Future.succeededFuture(future.cause())).await();
    assertThat(cause).as("the operation should have failed").isInstanceOf(GraphException.class);
    return (GraphException) cause;
  }

  // ---- nodes ----

  @Test
  void createNode_thenGetNode_returnsStoredFieldsAndDefaults() {
    Node created = store.createNode("pin", json("{\"link\": \"http://x\", \"extra\": [1, 2]}"), null).await();

    Node read = store.getNode(created.id()).await();

    assertThat(read.type()).isEqualTo("pin");
    assertThat(read.version()).isEqualTo(1);
    assertThat(read.data()).isEqualTo(json("{\"link\": \"http://x\", \"extra\": [1, 2], \"details\": \"\", \"likes\": 0}"));
    assertThat(read.createdAt()).isEqualTo(created.createdAt());
    assertThat(read).isEqualTo(created);
  }

  @Test
  void createNode_encodesShardTypeAndLocalIdInTheId() {
    Node node = user("ann");

    assertThat(node.id().type()).isEqualTo(1);
    assertThat(node.id().shard()).isBetween(0, 7);
    assertThat(node.id().local()).isPositive();
  }

  @Test
  void createNode_withColocateWith_landsOnThatNodesShard() {
    Node owner = user("colo");
    for (int i = 0; i < 10; i++) {
      assertThat(board(owner).id().shard()).isEqualTo(owner.id().shard());
    }
  }

  @Test
  void createNode_withoutColocation_spreadsOverBothHosts() {
    Set<String> hosts = new HashSet<>();
    for (int i = 0; i < 40; i++) {
      int shard = user("spread" + i).id().shard();
      hosts.add(fixture.backend.shardMap().rangeOf(shard).orElseThrow().host());
    }
    assertThat(hosts).containsExactlyInAnyOrder("h1", "h2");
  }

  @Test
  void createNode_withMissingRequiredField_failsNamingThePath() {
    GraphException error = failure(store.createNode("pin", json("{\"details\": 5}"), null));

    assertThat(error.code()).isEqualTo(Code.SCHEMA_VIOLATION);
    assertThat(error.details()).extractingByKey("fields").asString()
        .contains("data.link").contains("data.details");
  }

  @Test
  void createNode_strictTypeWithUnknownField_isRefused() {
    GraphException error = failure(store.createNode("tag", json("{\"label\": \"x\", \"colour\": \"red\"}"), null));

    assertThat(error.code()).isEqualTo(Code.SCHEMA_VIOLATION);
    assertThat(error.details()).extractingByKey("fields").asString().contains("data.colour");
  }

  @Test
  void createNode_unknownType_isNotFound() {
    assertThat(failure(store.createNode("spaceship", json("{}"), null)).code()).isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void createNode_payloadsWithSqlAndBinaryText_areStoredVerbatim() {
    String hostile = "'); DROP TABLE nodes_pin; -- \u0000\u0001\u00ff \uD83D\uDE00 \\\" ";
    var data = json("{\"link\": \"l\"}");
    data.put("details", hostile);

    Node read = store.getNode(store.createNode("pin", data, null).await().id()).await();

    assertThat(read.data().get("details").textValue()).isEqualTo(hostile);
  }

  // ---- unique lookups ----

  private static String uniqueName(String prefix) {
    return prefix + System.nanoTime();
  }

  @Test
  void getNodeBy_findsTheNodeHoldingAUniqueValue_byStringAndByInteger() {
    String handle = uniqueName("h");
    long number = System.nanoTime();
    Node account = store.createNode("account", json("{\"handle\": \"" + handle + "\", \"number\": " + number + "}"), null)
        .await();
    assertThat(store.getNodeBy("account", "handle", handle).await().id()).isEqualTo(account.id());
    assertThat(store.getNodeBy("account", "number", String.valueOf(number)).await().id()).isEqualTo(account.id());
    assertThat(failure(store.getNodeBy("account", "handle", uniqueName("nobody"))).code()).isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void aSecondNodeWithAHeldValue_isRefusedUniqueViolation_onCreateAndOnUpdate_andChangesNothing() {
    String handle = uniqueName("h");
    Node first = store.createNode("account", json("{\"handle\": \"" + handle + "\"}"), null).await();
    GraphException created = failure(store.createNode("account", json("{\"handle\": \"" + handle + "\"}"), null));
    assertThat(created.code()).isEqualTo(Code.UNIQUE_VIOLATION);
    assertThat(created.details()).containsEntry("field", "handle");

    Node second = store.createNode("account", json("{\"handle\": \"" + uniqueName("h") + "\"}"), null).await();
    GraphException updated = failure(store.updateNode(second.id(), json("{\"handle\": \"" + handle + "\"}"),
        GraphStore.ANY_VERSION));
    assertThat(updated.code()).isEqualTo(Code.UNIQUE_VIOLATION);
    assertThat(store.getNode(second.id()).await().version()).isEqualTo(1);
    assertThat(store.getNodeBy("account", "handle", handle).await().id()).isEqualTo(first.id());
  }

  @Test
  void getNodeBy_followsChanges_aChangedValueIsFound_theOldOneIsFree_andADeletedNodeIsNotFound() {
    String before = uniqueName("h");
    String after = uniqueName("h");
    Node account = store.createNode("account", json("{\"handle\": \"" + before + "\"}"), null).await();
    store.getNodeBy("account", "handle", before).await();
    store.updateNode(account.id(), json("{\"handle\": \"" + after + "\"}"), GraphStore.ANY_VERSION).await();
    assertThat(failure(store.getNodeBy("account", "handle", before)).code()).isEqualTo(Code.NOT_FOUND);
    assertThat(store.getNodeBy("account", "handle", after).await().version()).isEqualTo(2);
    Node other = store.createNode("account", json("{\"handle\": \"" + before + "\"}"), null).await();
    assertThat(store.getNodeBy("account", "handle", before).await().id()).isEqualTo(other.id());
    store.deleteNode(account.id()).await();
    assertThat(failure(store.getNodeBy("account", "handle", after)).code()).isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void getNodeBy_aFieldThatIsNotUnique_orAValueNotOfItsType_isInvalid() {
    assertThat(failure(store.getNodeBy("user", "name", "x")).code()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(failure(store.getNodeBy("account", "number", "seven")).code()).isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void getNodes_returnsRequestOrderAndListsMissing() {
    Node a = user("a");
    Node b = pin("b");
    Node c = user("c");
    NodeId absent = NodeId.of(a.id().shard(), 1, NodeId.MAX_LOCAL - 1);

    NodeBatch batch = store.getNodes(List.of(c.id(), absent, a.id(), b.id())).await();

    assertThat(batch.nodes()).extracting(Node::id).containsExactly(c.id(), a.id(), b.id());
    assertThat(batch.missing()).containsExactly(absent);
  }

  @Test
  void getNode_withShardOutsideTheMap_isInvalid() {
    GraphException error = failure(store.getNode(NodeId.of(9999, 1, 1)));
    assertThat(error.code()).isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void getNode_withUnknownType_isInvalid() {
    assertThat(failure(store.getNode(NodeId.of(1, 999, 1))).code()).isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void updateNode_mergesThePatchAndIncrementsTheVersion() {
    Node node = store.createNode("pin", json("{\"link\": \"l\", \"meta\": {\"a\": 1, \"b\": 2}}"), null).await();

    Node updated = store.updateNode(node.id(), json("{\"details\": \"d\", \"meta\": {\"b\": null, \"c\": 3}}"),
        GraphStore.ANY_VERSION).await();

    assertThat(updated.version()).isEqualTo(2);
    assertThat(updated.data()).isEqualTo(
        json("{\"link\": \"l\", \"details\": \"d\", \"likes\": 0, \"meta\": {\"a\": 1, \"c\": 3}}"));
    assertThat(store.getNode(node.id()).await()).isEqualTo(updated);
  }

  @Test
  void updateNode_withStaleVersion_conflictsAndChangesNothing() {
    Node node = pin("v");
    store.updateNode(node.id(), json("{\"details\": \"one\"}"), 1).await();

    GraphException error = failure(store.updateNode(node.id(), json("{\"details\": \"two\"}"), 1));

    assertThat(error.code()).isEqualTo(Code.VERSION_CONFLICT);
    assertThat(store.getNode(node.id()).await().data().get("details").textValue()).isEqualTo("one");
  }

  @Test
  void updateNode_conditionedOnAField_appliesWhenItHolds_andOtherwiseConflictsWithTheNodeAsItIs() {
    Node node = pin("cas");
    Node closed = store.updateNode(node.id(), json("{\"details\": \"closed\"}"),
        NodeCondition.fields(json("{\"details\": \"\", \"link\": \"cas\"}"))).await();
    assertThat(closed.data().get("details").textValue()).as("the default counts as the field's value")
        .isEqualTo("closed");

    GraphException error = failure(store.updateNode(node.id(), json("{\"details\": \"reopened\"}"),
        NodeCondition.fields(json("{\"details\": \"open\"}"))));

    assertThat(error.code()).isEqualTo(Code.VERSION_CONFLICT);
    assertThat(error.getMessage()).contains("'details'").contains("\"closed\"").contains("\"open\"");
    assertThat(error.details()).containsEntry("currentVersion", 2L).containsEntry("current", closed.data());
    assertThat(store.getNode(node.id()).await()).isEqualTo(closed);
    assertThat(failure(store.replaceNode(node.id(), json("{\"link\": \"x\"}"),
        NodeCondition.fields(json("{\"likes\": null}")))).code()).as("null asks for an absent or null field")
        .isEqualTo(Code.VERSION_CONFLICT);
  }

  @Test
  void concurrentCompareAndSets_onOneField_exactlyOneWins() {
    Node node = pin("race");
    List<Future<Node>> racing = new java.util.ArrayList<>();
    for (int i = 0; i < 8; i++) {
      racing.add(store.updateNode(node.id(), json("{\"details\": \"taken by " + i + "\"}"),
          NodeCondition.fields(json("{\"details\": \"\"}"))));
    }
    Future.join(racing).otherwiseEmpty().await();

    assertThat(racing.stream().filter(Future::succeeded).count()).isEqualTo(1);
    assertThat(racing.stream().filter(Future::failed).map(failed -> ((GraphException) failed.cause()).code()))
        .containsOnly(Code.VERSION_CONFLICT);
    assertThat(store.getNode(node.id()).await().version()).isEqualTo(2);
  }

  @Test
  void updateNode_removingARequiredField_isRefusedAndChangesNothing() {
    Node node = pin("keep");

    assertThat(failure(store.updateNode(node.id(), json("{\"link\": null}"), GraphStore.ANY_VERSION)).code())
        .isEqualTo(Code.SCHEMA_VIOLATION);
    assertThat(store.getNode(node.id()).await()).isEqualTo(node);
  }

  @Test
  void updateNode_concurrentPatches_loseNoUpdate() {
    Node node = pin("race");
    List<Future<Node>> updates = new ArrayList<>();
    for (int i = 0; i < 20; i++) {
      updates.add(store.updateNode(node.id(), json("{\"f" + i + "\": " + i + "}"), GraphStore.ANY_VERSION));
    }
    Future.all(updates).await();

    Node read = store.getNode(node.id()).await();
    assertThat(read.version()).isEqualTo(21);
    IntStream.range(0, 20).forEach(i -> assertThat(read.data().get("f" + i).intValue()).isEqualTo(i));
  }

  @Test
  void replaceNode_overwritesEveryField() {
    Node node = store.createNode("pin", json("{\"link\": \"l\", \"details\": \"d\", \"x\": 1}"), null).await();

    Node replaced = store.replaceNode(node.id(), json("{\"link\": \"m\"}"), 1).await();

    assertThat(replaced.data()).isEqualTo(json("{\"link\": \"m\", \"details\": \"\", \"likes\": 0}"));
  }

  @Test
  void deleteNode_thenGet_isNotFound_andDeletingAgainIsNotFound() {
    Node node = pin("gone");

    store.deleteNode(node.id()).await();

    assertThat(failure(store.getNode(node.id())).code()).isEqualTo(Code.NOT_FOUND);
    assertThat(failure(store.deleteNode(node.id())).code()).isEqualTo(Code.NOT_FOUND);
  }

  /**
   * A cascade runs in the background (an outbox operation), each edge through the single-edge
   * path: afterwards the node's lists and its edges' inverses are empty, and a cache watching the
   * store holds what MySQL holds (the invariants, after the test).
   */
  @Test
  void deleteNode_withCascade_removesItsEdgesAndTheirInverses() throws InterruptedException {
    Node board = board(null);
    List<Node> pins = new ArrayList<>();
    for (int i = 0; i < 3; i++) {
      pins.add(pin("cascade " + i));
      store.addEdge(board.id(), "board_has_pins", pins.get(i).id(), null, null).await();
    }
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(3);

    store.deleteNode(board.id(), GraphStore.Cascade.EDGES).await();

    Await.until("the cascade removed every edge and inverse", Duration.ofSeconds(20),
        () -> store.countEdges(board.id(), "board_has_pins").await() == 0
            && pins.stream().allMatch(pin -> store.countEdges(pin.id(), "pin_owned_by_board").await() == 0));
    assertThat(failure(store.getNode(board.id())).code()).isEqualTo(Code.NOT_FOUND);
    assertThat(store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(10)).await().edges()).isEmpty();
  }

  // ---- edges ----

  @Test
  void getEdges_returnsNewestSequenceFirst_andAscWhenAsked() {
    Node board = board(null);
    List<Node> pins = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      Node pin = pin("p" + i);
      pins.add(pin);
      store.addEdge(board.id(), "board_has_pins", pin.id(), 100L + i, null).await();
    }

    EdgePage desc = store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(10)).await();
    EdgePage asc = store.getEdges(board.id(), "board_has_pins",
        new EdgeQuery(10, null, 0, Order.ASC, null, null)).await();

    assertThat(desc.edges()).extracting(Edge::sequence).containsExactly(104L, 103L, 102L, 101L, 100L);
    assertThat(desc.edges()).extracting(Edge::to).containsExactly(
        pins.get(4).id(), pins.get(3).id(), pins.get(2).id(), pins.get(1).id(), pins.get(0).id());
    assertThat(desc.next()).isNull();
    assertThat(asc.edges()).extracting(Edge::sequence).containsExactly(100L, 101L, 102L, 103L, 104L);
  }

  @Test
  void getEdges_withSequenceBoundsAndOffset_returnsOnlyThatWindow() {
    Node board = board(null);
    for (int i = 0; i < 10; i++) {
      store.addEdge(board.id(), "board_has_pins", pin("w" + i).id(), (long) i, null).await();
    }

    EdgePage page = store.getEdges(board.id(), "board_has_pins", new EdgeQuery(3, null, 1, Order.DESC, 2L, 7L)).await();

    assertThat(page.edges()).extracting(Edge::sequence).containsExactly(6L, 5L, 4L);
    assertThat(page.next()).isNotNull();
  }

  @Test
  void getEdges_pagingWithACursor_returnsEveryEdgeOnceWhileEdgesAreAdded() {
    Node board = board(null);
    Set<NodeId> original = new HashSet<>();
    for (int i = 0; i < 23; i++) {
      Node pin = pin("c" + i);
      original.add(pin.id());
      store.addEdge(board.id(), "board_has_pins", pin.id(), 1000L + (i % 7), null).await();
    }

    List<NodeId> seen = new ArrayList<>();
    EdgeQuery query = EdgeQuery.firstPage(5);
    Cursor cursor = null;
    do {
      EdgePage page = store.getEdges(board.id(), "board_has_pins", query.after(cursor)).await();
      page.edges().forEach(edge -> seen.add(edge.to()));
      cursor = page.next();
      // Newer edges arrive between pages; they sort before the cursor and must not disturb it.
      store.addEdge(board.id(), "board_has_pins", pin("late").id(), null, null).await();
    } while (cursor != null);

    assertThat(seen).doesNotHaveDuplicates().containsAll(original).hasSize(original.size());
  }

  @Test
  void addEdge_twice_keepsOneEdgeAndUpdatesIt() {
    Node board = board(null);
    Node pin = pin("twice");

    store.addEdge(board.id(), "board_has_pins", pin.id(), 5L, json("{\"note\": \"first\"}")).await();
    Edge again = store.addEdge(board.id(), "board_has_pins", pin.id(), null, null).await();
    Edge changed = store.addEdge(board.id(), "board_has_pins", pin.id(), 9L, json("{\"note\": \"second\"}")).await();

    assertThat(again.sequence()).isEqualTo(5L);
    assertThat(again.data().get("note").textValue()).isEqualTo("first");
    assertThat(store.getEdge(board.id(), "board_has_pins", pin.id()).await()).isEqualTo(changed);
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(1);
  }

  @Test
  void getEdgesTo_answersExactlyTheActiveEdgesAmongTheTargets_newestFirst_eachOnce() {
    Node board = board(null);
    List<Node> pins = IntStream.range(0, 10).mapToObj(i -> pin("t" + i)).toList();
    for (int i = 0; i < pins.size(); i++) {
      store.addEdge(board.id(), "board_has_pins", pins.get(i).id(), 100L + i, null).await();
    }
    store.removeEdge(board.id(), "board_has_pins", pins.get(3).id()).await();
    Node unlinked = pin("unlinked");
    // Warm whatever the store keeps of the list, so a cache answers from it where it can.
    store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(5)).await();

    List<NodeId> asked = List.of(pins.get(1).id(), pins.get(3).id(), pins.get(5).id(), unlinked.id(),
        pins.get(5).id(), pins.get(9).id());
    List<Edge> found = store.getEdgesTo(board.id(), "board_has_pins", asked).await();

    assertThat(found).extracting(Edge::to).containsExactly(pins.get(9).id(), pins.get(5).id(), pins.get(1).id());
    for (Edge edge : found) {
      assertThat(edge).isEqualTo(store.getEdge(board.id(), "board_has_pins", edge.to()).await());
    }
    List<NodeId> newest = List.of(pins.get(9).id(), pins.get(8).id());
    assertThat(store.getEdgesTo(board.id(), "board_has_pins", newest).await()).extracting(Edge::to)
        .containsExactlyElementsOf(newest);
  }

  @Test
  void getEdgesTo_refusesNoTargets_tooMany_andATargetOfTheWrongType() {
    Node board = board(null);
    Node pin = pin("only");
    store.addEdge(board.id(), "board_has_pins", pin.id(), null, null).await();
    store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(5)).await();
    List<NodeId> tooMany = java.util.Collections.nCopies(GraphStore.MAX_EDGE_TARGETS + 1, pin.id());

    assertThat(failure(store.getEdgesTo(board.id(), "board_has_pins", List.of())).code()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(failure(store.getEdgesTo(board.id(), "board_has_pins", tooMany)).code()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(failure(store.getEdgesTo(board.id(), "board_has_pins", List.of(pin.id(), user("u").id()))).code())
        .isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void getEdgesTo_inAState_answersTheArchivedAlone_orBoth_newestFirst() {
    Node board = board(null);
    List<Node> pins = IntStream.range(0, 4).mapToObj(i -> pin("s" + i)).toList();
    for (int i = 0; i < pins.size(); i++) {
      store.addEdge(board.id(), "board_has_pins", pins.get(i).id(), 10L + i, null).await();
    }
    store.archiveEdge(board.id(), "board_has_pins", pins.get(2).id(), InverseWait.ASYNC).await();
    store.removeEdge(board.id(), "board_has_pins", pins.get(3).id()).await();
    List<NodeId> asked = pins.stream().map(Node::id).toList();
    Set<EdgeState> both = java.util.EnumSet.allOf(EdgeState.class);

    for (int read = 0; read < 2; read++) {
      assertThat(store.getEdgesTo(board.id(), "board_has_pins", asked, Set.of(EdgeState.ARCHIVED)).await())
          .extracting(Edge::to).containsExactly(pins.get(2).id());
      List<Edge> all = store.getEdgesTo(board.id(), "board_has_pins", asked, both).await();
      assertThat(all).extracting(Edge::to).containsExactly(pins.get(2).id(), pins.get(1).id(), pins.get(0).id());
      assertThat(all).extracting(Edge::state).containsExactly(EdgeState.ARCHIVED, EdgeState.ACTIVE, EdgeState.ACTIVE);
      assertThat(store.getEdgesTo(board.id(), "board_has_pins", asked).await()).extracting(Edge::to)
          .containsExactly(pins.get(1).id(), pins.get(0).id());
    }
    assertThat(failure(store.getEdgesTo(board.id(), "board_has_pins", asked, Set.of())).code())
        .isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void getEdgesBatch_answersEachEdgeFromAnySource_activeOrArchived_andTheMissing_inRequestOrder_eachOnce() {
    Node board = board(null);
    Node otherBoard = board(null);
    // On the board's shard: one statement there reads two edge tables.
    Node liker = store.createNode("user", json("{\"name\": \"liker\"}"), board.id()).await();
    List<Node> pins = IntStream.range(0, 3).mapToObj(i -> pin("b" + i)).toList();
    store.addEdge(board.id(), "board_has_pins", pins.get(0).id(), 5L, json("{\"note\": \"first\"}")).await();
    store.addEdge(otherBoard.id(), "board_has_pins", pins.get(1).id(), 6L, null).await();
    store.addEdge(liker.id(), "user_likes_pins", pins.get(2).id(), null, null).await();
    store.archiveEdge(otherBoard.id(), "board_has_pins", pins.get(1).id(), InverseWait.ASYNC).await();
    EdgeId liked = new EdgeId(liker.id(), "user_likes_pins", pins.get(2).id());
    EdgeId active = new EdgeId(board.id(), "board_has_pins", pins.get(0).id());
    EdgeId archived = new EdgeId(otherBoard.id(), "board_has_pins", pins.get(1).id());
    EdgeId none = new EdgeId(board.id(), "board_has_pins", pins.get(2).id());
    EdgeId notLiked = new EdgeId(liker.id(), "user_likes_pins", pins.get(0).id());
    List<EdgeId> asked = List.of(liked, none, active, archived, notLiked, active);

    for (int read = 0; read < 2; read++) {
      EdgeBatch batch = store.getEdgesBatch(asked).await();
      assertThat(batch.edges()).extracting(Edge::id).containsExactly(liked, active, archived);
      assertThat(batch.missing()).containsExactly(none, notLiked);
      for (Edge edge : batch.edges()) {
        assertThat(edge).isEqualTo(store.getEdge(edge.from(), edge.type(), edge.to()).await());
      }
      assertThat(batch.edges().get(2).state()).isEqualTo(EdgeState.ARCHIVED);
      assertThat(batch.edges().get(1).data().get("note").textValue()).isEqualTo("first");
    }
  }

  @Test
  void lookupEdges_readsWholeEachShortListAskedFor_acrossSourcesAndTables_butNotALongList_aLongArchive_orANeverWrittenOne() {
    int wholeUpTo = 4;
    Node shortBoard = board(null);
    Node longBoard = board(shortBoard);
    Node archiveBoard = board(shortBoard);
    Node emptyBoard = board(shortBoard);
    Node farBoard = board(null);
    Node liker = store.createNode("user", json("{\"name\": \"liker\"}"), shortBoard.id()).await();
    List<Node> pins = IntStream.range(0, 7).mapToObj(i -> pin("w" + i)).toList();
    store.addEdge(shortBoard.id(), "board_has_pins", pins.get(0).id(), 1L, null).await();
    store.addEdge(shortBoard.id(), "board_has_pins", pins.get(1).id(), 2L, json("{\"note\": \"kept\"}")).await();
    store.addEdge(shortBoard.id(), "board_has_pins", pins.get(2).id(), 3L, null, EdgeState.ARCHIVED, InverseWait.ASYNC)
        .await();
    for (int i = 0; i <= wholeUpTo; i++) {
      store.addEdge(longBoard.id(), "board_has_pins", pins.get(i).id(), (long) i, null).await();
    }
    // Two active, so its count allows a whole read, and more archived than the bound.
    for (int i = 0; i < 7; i++) {
      store.addEdge(archiveBoard.id(), "board_has_pins", pins.get(i).id(), (long) i, null,
          i < 2 ? EdgeState.ACTIVE : EdgeState.ARCHIVED, InverseWait.ASYNC).await();
    }
    store.addEdge(farBoard.id(), "board_has_pins", pins.get(3).id(), 4L, null).await();
    store.addEdge(liker.id(), "user_likes_pins", pins.get(4).id(), null, null).await();
    EdgeListId shortList = new EdgeListId(shortBoard.id(), "board_has_pins");
    EdgeListId longList = new EdgeListId(longBoard.id(), "board_has_pins");
    EdgeListId archiveList = new EdgeListId(archiveBoard.id(), "board_has_pins");
    EdgeListId emptyList = new EdgeListId(emptyBoard.id(), "board_has_pins");
    EdgeListId farList = new EdgeListId(farBoard.id(), "board_has_pins");
    EdgeListId likes = new EdgeListId(liker.id(), "user_likes_pins");
    List<EdgeId> asked = List.of(new EdgeId(shortBoard.id(), "board_has_pins", pins.get(0).id()),
        new EdgeId(longBoard.id(), "board_has_pins", pins.get(0).id()),
        new EdgeId(archiveBoard.id(), "board_has_pins", pins.get(0).id()),
        new EdgeId(emptyBoard.id(), "board_has_pins", pins.get(0).id()),
        new EdgeId(farBoard.id(), "board_has_pins", pins.get(0).id()),
        new EdgeId(liker.id(), "user_likes_pins", pins.get(0).id()));
    Set<EdgeListId> every = Set.of(shortList, longList, archiveList, emptyList, farList, likes);

    EdgeLookup lookup = store.lookupEdges(asked, every, wholeUpTo).await();
    assertThat(lookup.whole()).containsExactlyInAnyOrder(shortList, farList, likes);
    assertThat(lookup.versions()).containsOnlyKeys(every).containsEntry(emptyList, 0L);
    List<EdgeId> expected = new ArrayList<>();
    IntStream.range(0, 3).forEach(i -> expected.add(new EdgeId(shortBoard.id(), "board_has_pins", pins.get(i).id())));
    expected.add(new EdgeId(longBoard.id(), "board_has_pins", pins.get(0).id()));
    expected.add(new EdgeId(archiveBoard.id(), "board_has_pins", pins.get(0).id()));
    expected.add(new EdgeId(farBoard.id(), "board_has_pins", pins.get(3).id()));
    expected.add(new EdgeId(liker.id(), "user_likes_pins", pins.get(4).id()));
    assertThat(lookup.found().keySet()).as("what was asked for, and every live edge of the lists read whole")
        .containsExactlyInAnyOrderElementsOf(expected);
    for (Edge edge : lookup.found().values()) {
      assertThat(edge).isEqualTo(store.getEdge(edge.from(), edge.type(), edge.to()).await());
    }

    EdgeLookup named = store.lookupEdges(asked, Set.of(), wholeUpTo).await();
    assertThat(named.whole()).as("no list asked to be read whole").isEmpty();
    assertThat(named.found()).hasSize(3);
    assertThat(named.versions()).isEqualTo(lookup.versions());
    EdgeLookup one = store.lookupEdges(asked.subList(0, 1), Set.of(shortList), wholeUpTo).await();
    assertThat(one.whole()).containsExactly(shortList);
    assertThat(one.found()).hasSize(3);
    assertThat(store.lookupEdges(asked.subList(0, 1), Set.of(), wholeUpTo).await().whole()).isEmpty();
    assertThat(store.lookupEdges(asked.subList(2, 3), Set.of(archiveList), wholeUpTo).await().whole()).isEmpty();
  }

  @Test
  void getEdgesBatch_refusesNoEdges_tooMany_andAnEndOfTheWrongType_andFindsNoUnknownType() {
    Node board = board(null);
    Node pin = pin("only");
    EdgeId fine = new EdgeId(board.id(), "board_has_pins", pin.id());
    store.getEdgesBatch(List.of(fine)).await();

    assertThat(failure(store.getEdgesBatch(List.of())).code()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(failure(store.getEdgesBatch(java.util.Collections.nCopies(GraphStore.MAX_EDGE_BATCH + 1, fine))).code())
        .isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(failure(store.getEdgesBatch(List.of(fine, new EdgeId(board.id(), "no_such_type", pin.id())))).code())
        .as("as getEdge answers it").isEqualTo(Code.NOT_FOUND);
    assertThat(failure(store.getEdgesBatch(List.of(fine, new EdgeId(board.id(), "board_has_pins", board.id())))).code())
        .isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void singleEdgeReads_followEveryWrite_addUpdateArchiveRestoreRemove() {
    Node board = board(null);
    Node pin = pin("followed");
    EdgeId id = new EdgeId(board.id(), "board_has_pins", pin.id());
    Set<EdgeState> both = java.util.EnumSet.allOf(EdgeState.class);
    java.util.function.Supplier<Edge> read = () -> {
      EdgeBatch batch = store.getEdgesBatch(List.of(id)).await();
      List<Edge> to = store.getEdgesTo(board.id(), "board_has_pins", List.of(pin.id()), both).await();
      assertThat(to).containsExactlyElementsOf(batch.edges());
      return batch.edges().isEmpty() ? null : batch.edges().get(0);
    };
    assertThat(read.get()).isNull();
    assertThat(failure(store.getEdge(board.id(), "board_has_pins", pin.id())).code()).isEqualTo(Code.NOT_FOUND);

    Edge added = store.addEdge(board.id(), "board_has_pins", pin.id(), 7L, json("{\"note\": \"a\"}")).await();
    assertThat(read.get()).isEqualTo(added);
    Edge updated = store.addEdge(board.id(), "board_has_pins", pin.id(), 8L, json("{\"note\": \"b\"}")).await();
    assertThat(read.get()).isEqualTo(updated);
    assertThat(store.getEdge(board.id(), "board_has_pins", pin.id()).await()).isEqualTo(updated);
    Edge archived = store.archiveEdge(board.id(), "board_has_pins", pin.id(), InverseWait.ASYNC).await().edge();
    assertThat(read.get()).isEqualTo(archived);
    assertThat(store.getEdge(board.id(), "board_has_pins", pin.id()).await().state()).isEqualTo(EdgeState.ARCHIVED);
    Edge restored = store.restoreEdge(board.id(), "board_has_pins", pin.id(), InverseWait.ASYNC).await().edge();
    assertThat(read.get()).isEqualTo(restored);
    store.removeEdge(board.id(), "board_has_pins", pin.id()).await();
    assertThat(read.get()).isNull();
    assertThat(failure(store.getEdge(board.id(), "board_has_pins", pin.id())).code()).isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void archiveEdge_leavesListAndCount_getEdgeStillReadsIt_andRestoreBringsItBackWhole() {
    Node board = board(null);
    List<Node> pins = IntStream.range(0, 3).mapToObj(i -> pin("a" + i)).toList();
    for (int i = 0; i < pins.size(); i++) {
      store.addEdge(board.id(), "board_has_pins", pins.get(i).id(), 10L + i, json("{\"note\": \"n" + i + "\"}")).await();
    }
    NodeId archived = pins.get(1).id();
    Edge before = store.getEdge(board.id(), "board_has_pins", archived).await();
    store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(10)).await();

    EdgeResult archiving = store.archiveEdge(board.id(), "board_has_pins", archived, InverseWait.ASYNC).await();
    assertThat(archiving.change()).isEqualTo(EdgeResult.Change.ARCHIVED);
    assertThat(archiving.edge().state()).isEqualTo(EdgeState.ARCHIVED);
    assertThat(store.archiveEdge(board.id(), "board_has_pins", archived, InverseWait.ASYNC).await().change())
        .isEqualTo(EdgeResult.Change.UNCHANGED);
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(2);
    assertThat(store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(10)).await().edges())
        .extracting(Edge::to).containsExactly(pins.get(2).id(), pins.get(0).id());
    assertThat(store.getEdgesTo(board.id(), "board_has_pins", List.of(archived)).await()).isEmpty();
    Edge read = store.getEdge(board.id(), "board_has_pins", archived).await();
    assertThat(read.state()).isEqualTo(EdgeState.ARCHIVED);
    assertThat(read.sequence()).isEqualTo(before.sequence());
    assertThat(read.data()).isEqualTo(before.data());

    EdgeResult restoring = store.restoreEdge(board.id(), "board_has_pins", archived, InverseWait.ASYNC).await();
    assertThat(restoring.change()).isEqualTo(EdgeResult.Change.RESTORED);
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(3);
    assertThat(store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(10)).await().edges())
        .extracting(Edge::to).containsExactly(pins.get(2).id(), archived, pins.get(0).id());
    Edge back = store.getEdge(board.id(), "board_has_pins", archived).await();
    assertThat(back.state()).isEqualTo(EdgeState.ACTIVE);
    assertThat(back.sequence()).isEqualTo(before.sequence());
    assertThat(back.data()).isEqualTo(before.data());
    assertThat(failure(store.archiveEdge(board.id(), "board_has_pins", pin("never").id(), InverseWait.ASYNC)).code())
        .isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void getTargets_answersActiveTargetsInAscendingIdOrder_pageByPage() {
    Node board = board(null);
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < 9; i++) {
      pins.add(pin("g" + i).id());
      store.addEdge(board.id(), "board_has_pins", pins.get(i), (long) ((i * 5) % 9), null).await();
    }
    store.removeEdge(board.id(), "board_has_pins", pins.get(2)).await();
    store.archiveEdge(board.id(), "board_has_pins", pins.get(6), InverseWait.ASYNC).await();
    store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(5)).await();
    List<NodeId> expected = pins.stream().filter(pin -> !pin.equals(pins.get(2)) && !pin.equals(pins.get(6)))
        .sorted(java.util.Comparator.comparingLong(NodeId::value)).toList();

    List<NodeId> read = new ArrayList<>();
    NodeId after = null;
    List<NodeId> page;
    do {
      page = store.getTargets(board.id(), "board_has_pins", after, 3).await();
      read.addAll(page);
      after = page.isEmpty() ? after : page.get(page.size() - 1);
    } while (page.size() == 3);

    assertThat(read).containsExactlyElementsOf(expected);
    assertThat(failure(store.getTargets(board.id(), "board_has_pins", null, 0)).code()).isEqualTo(Code.INVALID_ARGUMENT);
  }

  @Test
  void countEdges_equalsActiveEdgesAfterAddsReaddsAndRemoves() {
    Node board = board(null);
    List<Node> pins = IntStream.range(0, 6).mapToObj(i -> pin("n" + i)).toList();
    pins.forEach(p -> store.addEdge(board.id(), "board_has_pins", p.id(), null, null).await());
    store.addEdge(board.id(), "board_has_pins", pins.get(0).id(), null, null).await();
    store.removeEdge(board.id(), "board_has_pins", pins.get(1).id()).await();
    store.removeEdge(board.id(), "board_has_pins", pins.get(1).id()).await();
    store.removeEdge(board.id(), "board_has_pins", pins.get(2).id()).await();
    store.addEdge(board.id(), "board_has_pins", pins.get(2).id(), null, null).await();

    long count = store.countEdges(board.id(), "board_has_pins").await();
    List<Edge> listed = store.getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(100)).await().edges();

    assertThat(count).isEqualTo(5).isEqualTo(listed.size());
    assertThat(failure(store.getEdge(board.id(), "board_has_pins", pins.get(1).id())).code()).isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void addEdge_concurrentlyForOneEdge_countsItOnce_andForManyEdgesCountsEach() {
    Node board = board(null);
    Node pin = pin("same");
    List<Node> others = IntStream.range(0, 16).mapToObj(i -> pin("many" + i)).toList();
    List<Future<Edge>> adds = new ArrayList<>();
    for (int i = 0; i < 16; i++) {
      adds.add(store.addEdge(board.id(), "board_has_pins", pin.id(), null, null));
      adds.add(store.addEdge(board.id(), "board_has_pins", others.get(i).id(), null, null));
    }
    Future.all(adds).await();

    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(17);
  }

  @Test
  void addEdge_withAndWithoutACondition_makeTheSameEdge_fromEveryStoredState() {
    // An add with no condition decides what it keeps in SQL, on MariaDB (EdgesTable#upsertFrom); one
    // with a condition reads the row first and decides in Java (EdgeStore#added). Both mean the same:
    // a null sequence keeps an active edge's and gives any other the write time, null data keeps an
    // active edge's and clears any other's, and the write lands after whatever is stored.
    Node plain = board(null);
    Node conditional = board(null);
    List<String> stored = List.of("absent", "active", "archived", "removed");
    List<Node> pins = new ArrayList<>();
    for (String before : stored) {
      for (boolean keep : List.of(true, false)) {
        for (EdgeState written : List.of(EdgeState.ACTIVE, EdgeState.ARCHIVED)) {
          Node pin = pin(before + keep + written);
          pins.add(pin);
          for (Node board : List.of(plain, conditional)) {
            if (!before.equals("absent")) {
              store.addEdge(board.id(), "board_has_pins", pin.id(), 5L, json("{\"note\": \"kept\"}")).await();
            }
            if (before.equals("archived")) {
              store.archiveEdge(board.id(), "board_has_pins", pin.id(), InverseWait.ASYNC).await();
            } else if (before.equals("removed")) {
              store.removeEdge(board.id(), "board_has_pins", pin.id()).await();
            }
          }
          Instant start = Instant.now().minusMillis(1);
          Edge was = before.equals("absent") || before.equals("removed") ? null
              : store.getEdge(plain.id(), "board_has_pins", pin.id()).await();
          Long sequence = keep ? null : 9L;
          ObjectNode data = keep ? null : json("{\"note\": \"new\"}");
          EdgeCondition met = was == null ? EdgeCondition.ABSENT : EdgeCondition.PRESENT;
          EdgeResult unconditioned = store.addEdge(plain.id(), "board_has_pins", pin.id(), sequence, data, written,
              InverseWait.APPLIED, EdgeCondition.NONE).await();
          EdgeResult conditioned = store.addEdge(conditional.id(), "board_has_pins", pin.id(), sequence, data, written,
              InverseWait.APPLIED, met).await();

          String what = before + ", keep " + keep + ", written " + written;
          for (EdgeResult result : List.of(unconditioned, conditioned)) {
            Edge edge = result.edge();
            boolean keeps = keep && before.equals("active");
            assertThat(edge.state()).as(what).isEqualTo(written);
            if (keeps) {
              assertThat(edge.sequence()).as(what).isEqualTo(5L);
              assertThat(edge.data().get("note").textValue()).as(what).isEqualTo("kept");
            } else if (keep) {
              assertThat(edge.sequence()).as(what + ": the write time").isGreaterThanOrEqualTo(
                  start.toEpochMilli() * 1000);
              assertThat(edge.data().path("note").asText()).as(what + ": no data, the default").isEmpty();
            } else {
              assertThat(edge.sequence()).as(what).isEqualTo(9L);
              assertThat(edge.data().get("note").textValue()).as(what).isEqualTo("new");
            }
            if (was != null) {
              assertThat(edge.updatedAt()).as(what).isAfter(was.updatedAt());
            }
            assertThat(store.getEdge(edge.from(), "board_has_pins", pin.id()).await()).as(what).isEqualTo(edge);
          }
          assertThat(unconditioned.change()).as(what).isEqualTo(conditioned.change());
          if (!keep || !before.equals("active")) {
            assertThat(unconditioned.edge().data()).as(what).isEqualTo(conditioned.edge().data());
          }
        }
      }
    }
    assertThat(store.countEdges(plain.id(), "board_has_pins").await())
        .isEqualTo(store.countEdges(conditional.id(), "board_has_pins").await())
        .isEqualTo(stored.size() * 2);
  }

  @Test
  void addEdge_racingForNewEdges_eachIsCreatedOnce_theRestUpdateIt_andNoWriteFails() {
    // A new edge has no row to lock. On MariaDB each writer's upsert waits for the first one's insert
    // and then updates the row; where a write reads the row first, racing writers all find it absent,
    // the first INSERT wins, and each other's fails on the duplicate key and runs again, finding it.
    Node board = board(null);
    List<Node> pins = IntStream.range(0, 8).mapToObj(i -> pin("racing" + i)).toList();
    List<Future<EdgeResult>> adds = new ArrayList<>();
    for (Node pin : pins) {
      for (int i = 0; i < 12; i++) {
        adds.add(store.addEdge(board.id(), "board_has_pins", pin.id(), (long) i, null, EdgeState.ACTIVE,
            InverseWait.APPLIED, EdgeCondition.NONE));
      }
    }
    Future.join(adds).otherwiseEmpty().await();

    assertThat(adds).allSatisfy(add -> assertThat(add.succeeded()).as(String.valueOf(add.cause())).isTrue());
    assertThat(adds.stream().filter(add -> add.result().change() == EdgeResult.Change.CREATED).count())
        .as("one creation per edge").isEqualTo(pins.size());
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(pins.size());
  }

  @Test
  void addEdge_ifAbsent_addsOnce_andAgainConflictsWithTheEdgeAsItIs_whileARemovedEdgeIsAbsent() {
    Node board = board(null);
    Node pin = pin("if-absent");
    Future<EdgeResult> added = store.addEdge(board.id(), "board_has_pins", pin.id(), 4L, json("{\"note\": \"n\"}"),
        EdgeState.ACTIVE, InverseWait.APPLIED, EdgeCondition.ABSENT);
    assertThat(added.await().change()).isEqualTo(EdgeResult.Change.CREATED);

    GraphException again = failure(store.addEdge(board.id(), "board_has_pins", pin.id(), 9L, null, EdgeState.ACTIVE,
        InverseWait.ASYNC, EdgeCondition.ABSENT));

    assertThat(again.code()).isEqualTo(Code.VERSION_CONFLICT);
    assertThat(again.getMessage()).contains("no edge").contains("sequence 4");
    @SuppressWarnings("unchecked")
    java.util.Map<String, Object> current = (java.util.Map<String, Object>) again.details().get("current");
    assertThat(current).containsEntry("sequence", 4L)
        .containsEntry("state", "active").containsEntry("data", json("{\"note\": \"n\"}"));
    assertThat(store.getEdge(board.id(), "board_has_pins", pin.id()).await().sequence()).isEqualTo(4L);
    store.removeEdge(board.id(), "board_has_pins", pin.id(), InverseWait.APPLIED).await();
    assertThat(store.addEdge(board.id(), "board_has_pins", pin.id(), 5L, null, EdgeState.ACTIVE, InverseWait.APPLIED,
        EdgeCondition.ABSENT).await().edge().sequence()).as("a removed edge is absent").isEqualTo(5L);
  }

  @Test
  void addEdge_atASequence_updatesOnlyThatEdge_andAPresentConditionNeedsAnEdge() {
    Node board = board(null);
    Node pin = pin("if-match");
    Node other = pin("if-match-other");
    store.addEdge(board.id(), "board_has_pins", pin.id(), 7L, null).await();

    GraphException stale = failure(store.addEdge(board.id(), "board_has_pins", pin.id(), 8L, null, EdgeState.ACTIVE,
        InverseWait.ASYNC, EdgeCondition.atSequence(6)));
    EdgeResult updated = store.addEdge(board.id(), "board_has_pins", pin.id(), 8L, json("{\"note\": \"m\"}"),
        EdgeState.ACTIVE, InverseWait.APPLIED, EdgeCondition.atSequence(7)).await();
    GraphException missing = failure(store.addEdge(board.id(), "board_has_pins", other.id(), 1L, null,
        EdgeState.ACTIVE, InverseWait.ASYNC, EdgeCondition.PRESENT));

    assertThat(stale.code()).isEqualTo(Code.VERSION_CONFLICT);
    assertThat(updated.edge().sequence()).isEqualTo(8L);
    assertThat(missing.code()).isEqualTo(Code.VERSION_CONFLICT);
    assertThat(missing.details().get("current")).as("absent: null")
        .isEqualTo(com.fasterxml.jackson.databind.node.NullNode.getInstance());
    assertThat(failure(store.getEdge(board.id(), "board_has_pins", other.id())).code())
        .as("a refused write leaves nothing, not even a placeholder that reads as an edge").isEqualTo(Code.NOT_FOUND);
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(1);
  }

  @Test
  void addEdge_ifAbsent_racing_exactlyOneAdds_andTheOthersConflict() {
    Node board = board(null);
    Node pin = pin("if-absent-race");
    List<Future<EdgeResult>> racing = new ArrayList<>();
    for (int i = 0; i < 8; i++) {
      racing.add(store.addEdge(board.id(), "board_has_pins", pin.id(), (long) i, null, EdgeState.ACTIVE,
          InverseWait.APPLIED, EdgeCondition.ABSENT));
    }
    Future.join(racing).otherwiseEmpty().await();

    assertThat(racing.stream().filter(Future::succeeded).count()).isEqualTo(1);
    assertThat(racing.stream().filter(Future::failed).map(failed -> ((GraphException) failed.cause()).code()))
        .containsOnly(Code.VERSION_CONFLICT);
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isEqualTo(1);
  }

  @Test
  void addEdge_withIdOfTheWrongNodeType_isInvalidAndWritesNothing() {
    Node board = board(null);
    Node user = user("not-a-pin");

    GraphException error = failure(store.addEdge(board.id(), "board_has_pins", user.id(), null, null));

    assertThat(error.code()).isEqualTo(Code.INVALID_ARGUMENT);
    assertThat(error.getMessage()).contains("board_has_pins").contains("user");
    assertThat(store.countEdges(board.id(), "board_has_pins").await()).isZero();
  }

  @Test
  void addEdge_fromAMissingNode_isNotFound() {
    NodeId ghost = NodeId.of(0, 2, NodeId.MAX_LOCAL - 5);
    assertThat(failure(store.addEdge(ghost, "board_has_pins", pin("p").id(), null, null)).code())
        .isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void addEdge_unknownEdgeType_isNotFound() {
    assertThat(failure(store.addEdge(board(null).id(), "nope", pin("p").id(), null, null)).code())
        .isEqualTo(Code.NOT_FOUND);
  }

  @Test
  void addEdge_withInvalidData_isASchemaViolation() {
    GraphException error = failure(store.addEdge(board(null).id(), "board_has_pins", pin("p").id(), null,
        json("{\"note\": 7}")));
    assertThat(error.code()).isEqualTo(Code.SCHEMA_VIOLATION);
  }

  @Test
  void edgeWrites_sayWhatTheyDid_createdUpdatedUnchanged_removedAbsent() {
    Node board = board(null);
    Node pin = pin("said");
    assertThat(store.addEdge(board.id(), "board_has_pins", pin.id(), null, null, InverseWait.ASYNC).await().change())
        .isEqualTo(EdgeResult.Change.CREATED);
    assertThat(store.addEdge(board.id(), "board_has_pins", pin.id(), null, null, InverseWait.ASYNC).await().change())
        .as("a re-add keeping sequence and data").isEqualTo(EdgeResult.Change.UNCHANGED);
    assertThat(store.addEdge(board.id(), "board_has_pins", pin.id(), 7L, null, InverseWait.ASYNC).await().change())
        .isEqualTo(EdgeResult.Change.UPDATED);
    assertThat(store.removeEdge(board.id(), "board_has_pins", pin.id(), InverseWait.ASYNC).await().change())
        .isEqualTo(EdgeResult.Change.REMOVED);
    assertThat(store.removeEdge(board.id(), "board_has_pins", pin.id(), InverseWait.ASYNC).await().change())
        .isEqualTo(EdgeResult.Change.ABSENT);
  }
}
