package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.ReadToken;
import io.quiver.store.RepairReport;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardState;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * With the change log written from the binary log, a forward write leaves its inverse in no
 * outbox: its host's tailer reads the forward copy and writes the inverse before it moves its
 * position past it ({@link ChangeTailer}). These are the ways that could lose one or report one
 * lost: many writes at once, an inverse whose shard cannot be written, and a repair running while
 * inverses are still on their way through a tail.
 */
@ExtendWith(GraphInvariants.class)
class InversesFromTheTailTest {
  private static final Duration SETTLE = Duration.ofSeconds(15);
  private static StoreFixture fixture;
  private static GraphStore store;
  private static ShardTables tables;

  @BeforeAll
  static void start() throws Exception {
    fixture = StoreFixture.withChangeLog(ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG));
    store = fixture.store;
    tables = new ShardTables(TestBackend.get());
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  private static NodeId node(String type, String data) {
    return store.createNode(type, json(data), null).await().id();
  }

  private static String hostOf(NodeId node) {
    return fixture.backend.shardMap().rangeOf(node.shard()).orElseThrow().host();
  }

  private static void awaitInverses(Set<Long> boards) throws Exception {
    Await.until("every inverse written", SETTLE,
        () -> tables.inverseDifferences("board_has_pins", "pin_owned_by_board", boards).isEmpty());
    assertThat(tables.inverseDifferences("board_has_pins", "pin_owned_by_board", boards)).isEmpty();
  }

  @Test
  void manyWritesAtOnce_leaveNoOutboxEntry_andTheTailWritesEveryInverse() throws Exception {
    List<NodeId> boards = new ArrayList<>();
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < 6; i++) {
      boards.add(node("board", "{\"title\": \"many\"}"));
      pins.add(node("pin", "{\"link\": \"many\"}"));
    }
    long entriesBefore = tables.outboxEntries(false);
    List<Future<?>> writes = new ArrayList<>();
    for (NodeId board : boards) {
      for (NodeId pin : pins) {
        writes.add(store.addEdge(board, "board_has_pins", pin, null, null, InverseWait.ASYNC));
      }
    }
    Future.all(writes).await();
    for (int i = 0; i < boards.size(); i++) {
      store.addEdge(boards.get(i), "board_has_pins", pins.get(i), 77L, json("{\"note\": \"again\"}"),
          InverseWait.ASYNC).await();
      store.archiveEdge(boards.get(i), "board_has_pins", pins.get((i + 1) % pins.size()), InverseWait.ASYNC).await();
      store.removeEdge(boards.get(i), "board_has_pins", pins.get((i + 2) % pins.size()), InverseWait.ASYNC).await();
    }

    assertThat(tables.outboxEntries(false)).as("no write left an outbox entry").isEqualTo(entriesBefore);
    Set<Long> froms = new HashSet<>();
    boards.forEach(board -> froms.add(board.value()));
    awaitInverses(froms);
    NodeId pin = pins.get(1);
    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", boards.get(0)).await().state())
        .isEqualTo(EdgeState.ARCHIVED);
    assertThat(store.fresh().getEdge(pins.get(2), "pin_owned_by_board", boards.get(0)).otherwiseEmpty().await())
        .isNull();
    assertThat(store.countEdges(pin, "pin_owned_by_board").await()).as("active: every board but the one archiving")
        .isEqualTo(boards.size() - 1 - 1);
  }

  @Test
  void anInverseWhoseShardCannotBeWritten_waitsInTheForwardShardsOutbox_andIsWrittenOnceItCanBe() throws Exception {
    NodeId board = node("board", "{\"title\": \"ro\"}");
    NodeId pin = node("pin", "{\"link\": \"ro\"}");
    while (hostOf(pin).equals(hostOf(board))) {
      pin = node("pin", "{\"link\": \"ro\"}");
    }
    ShardMapStore maps = new ShardMapStore(TestBackend.get().curator(), TestBackend.SHARD_MAP_PATH);
    try {
      publishState(maps, pin.shard(), ShardState.READ_ONLY);
      ReadToken token = store.addEdge(board, "board_has_pins", pin, 4L, null, InverseWait.ASYNC).await().token();
      NodeId target = pin;
      Await.until("the tail left the inverse in the board's outbox", SETTLE,
          () -> tables.outboxEntriesFrom(board.shard(), target, false) > 0);
      assertThat(tables.outboxEntriesFrom(board.shard(), pin, false)).isEqualTo(1);
      Throwable unsettled = store.settle(token).transform(done -> Future.succeededFuture(done.cause())).await();
      assertThat(unsettled).as("a token cannot be settled while the shard is read-only")
          .isInstanceOfSatisfying(GraphException.class, e -> assertThat(e.code()).isEqualTo(GraphException.Code.UNAVAILABLE));
    } finally {
      publishState(maps, pin.shard(), ShardState.READ_WRITE);
    }
    tables.awaitOutboxesDrained(SETTLE);
    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", board).await().sequence()).isEqualTo(4L);
  }

  @Test
  void aForwardCopyReadAfterItsShardTurnedReadOnly_leavesItsInverseInThatShardsOutbox_asAMovesSourceMust()
      throws Exception {
    NodeId board = node("board", "{\"title\": \"moving\"}");
    NodeId pin = node("pin", "{\"link\": \"moving\"}");
    ShardMapStore maps = new ShardMapStore(TestBackend.get().curator(), TestBackend.SHARD_MAP_PATH);
    EdgesTable forward = tables.edgesTable("board_has_pins");
    try {
      publishState(maps, board.shard(), ShardState.READ_ONLY);
      publishState(maps, pin.shard(), ShardState.READ_ONLY);
      // A forward copy that committed before its shard turned read-only (a move's fence lets it
      // finish) and that the tail reads after: written here by plain SQL, which the tail cannot
      // tell from a write of the store's. Its inverse cannot be written (the pin's shard is
      // read-only too), so it must wait in the board's outbox, read-only as that shard is.
      tables.execute(board.shard(), "INSERT INTO " + forward.on(board.shard())
          + " (from_id, to_id, sequence, state, data, updated_us) VALUES (" + board.value() + ", " + pin.value()
          + ", 9, " + EdgeRow.ACTIVE + ", NULL, " + SqlValues.nowMicros(java.time.Clock.systemUTC()) + ")");
      tables.execute(board.shard(), "INSERT INTO " + CountsTable.INSTANCE.on(board.shard())
          + " (from_id, edge_type, count, version) VALUES (" + board.value() + ", " + forward.type().id() + ", 1, 1)");
      Await.until("the tail left the inverse in the read-only board shard's outbox", SETTLE,
          () -> tables.outboxEntriesFrom(board.shard(), pin, false) > 0);
      assertThat(tables.outboxEntriesFrom(board.shard(), pin, false)).isEqualTo(1);
    } finally {
      publishState(maps, board.shard(), ShardState.READ_WRITE);
      publishState(maps, pin.shard(), ShardState.READ_WRITE);
    }
    tables.awaitOutboxesDrained(SETTLE);
    assertThat(store.fresh().getEdge(pin, "pin_owned_by_board", board).await().sequence()).isEqualTo(9L);
  }

  @Test
  void aRepairWhileInversesAreOnTheirWayThroughTheTail_reportsNoDamage_yetFindsDamageMadeBehindTheStoresBack()
      throws Exception {
    List<NodeId> boards = new ArrayList<>();
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      boards.add(node("board", "{\"title\": \"busy\"}"));
      pins.add(node("pin", "{\"link\": \"busy\"}"));
    }
    // Whatever earlier tests of this JVM left broken on purpose is mended first, so the runs below
    // count only what happens while they write.
    fixture.backend.repairs().edges("board_has_pins", line -> { }).await();
    AtomicBoolean writing = new AtomicBoolean(true);
    AtomicReference<Throwable> failed = new AtomicReference<>();
    Thread writer = new Thread(() -> {
      long sequence = 1;
      try {
        while (writing.get()) {
          for (NodeId board : boards) {
            for (NodeId pin : pins) {
              store.addEdge(board, "board_has_pins", pin, sequence++, null, InverseWait.ASYNC).await();
            }
          }
        }
      } catch (Throwable e) {
        failed.set(e);
      }
    });
    writer.start();
    List<RepairReport> reports = new ArrayList<>();
    try {
      for (int i = 0; i < 3; i++) {
        reports.add(fixture.backend.repairs().edges("board_has_pins", line -> { }).await());
      }
    } finally {
      writing.set(false);
      writer.join();
    }
    assertThat(failed.get()).isNull();
    for (RepairReport report : reports) {
      assertThat(report.missingInverse() + report.differing() + report.orphanedInverse())
          .as("no damage while writes go on: %s", report).isZero();
      assertThat(report.fixed()).as("nothing fixed against the tail: %s", report).isZero();
    }
    Set<Long> froms = new HashSet<>();
    boards.forEach(board -> froms.add(board.value()));
    awaitInverses(froms);

    // A lost inverse (its row and its count gone, made behind the store's back, so no write of it
    // is on its way) is damage, whatever the tail holds.
    NodeId board = boards.get(0);
    NodeId pin = pins.get(0);
    int inverseType = tables.edgesTable("pin_owned_by_board").type().id();
    tables.execute(pin.shard(), "DELETE FROM " + tables.edgesTable("pin_owned_by_board").on(pin.shard())
        + " WHERE from_id = " + pin.value() + " AND to_id = " + board.value());
    tables.execute(pin.shard(), "UPDATE " + CountsTable.INSTANCE.on(pin.shard()) + " SET count = count - 1"
        + " WHERE from_id = " + pin.value() + " AND edge_type = " + inverseType);

    RepairReport report = fixture.backend.repairs().edges("board_has_pins", line -> { }).await();

    assertThat(report.missingInverse()).as("%s", report).isEqualTo(1);
    assertThat(report.fixed()).isEqualTo(1);
    awaitInverses(froms);
  }

  private static void publishState(ShardMapStore maps, int shard, ShardState state) throws Exception {
    ShardMap current = maps.read().orElseThrow();
    ShardMap next = current.withState(shard, state).withVersion(current.version() + 1);
    maps.publish(next);
    Await.until("the store follows the map", Duration.ofSeconds(2),
        () -> fixture.backend.shardMap().version() >= next.version());
  }
}
