package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.EdgeResult;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.RepairReport;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables.Key;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Repair finds deliberately broken inverse copies, fixes them, and reports what it found. */
@ExtendWith(GraphInvariants.class)
class InverseRepairTest {
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

  @Test
  void addEdge_waitingForTheInverse_canReadItAtOnce() {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"w\"}"), null).await().id();
    NodeId pin = store.createNode("pin", json("{\"link\": \"w\"}"), null).await().id();

    EdgeResult added = store.addEdge(board, "board_has_pins", pin, 7L, json("{\"note\": \"x\"}"), InverseWait.APPLIED)
        .await();

    assertThat(added.inverse()).isEqualTo(EdgeResult.Inverse.APPLIED);
    var inverse = store.getEdge(pin, "pin_owned_by_board", board).await();
    assertThat(inverse.sequence()).isEqualTo(7L);
    assertThat(inverse.data().get("note").asText()).isEqualTo("x");
    assertThat(store.removeEdge(board, "board_has_pins", pin, InverseWait.APPLIED).await().inverse())
        .isEqualTo(EdgeResult.Inverse.APPLIED);
    assertThat(store.getEdge(pin, "pin_owned_by_board", board).otherwiseEmpty().await()).isNull();
  }

  @Test
  void repair_findsMissingDifferingAndOrphanedCopies_fixesThem_andASecondRunFindsNothing() throws Exception {
    GraphStore store = fixture.store;
    List<NodeId> boards = new ArrayList<>();
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < 4; i++) {
      boards.add(store.createNode("board", json("{\"title\": \"r\"}"), null).await().id());
      pins.add(store.createNode("pin", json("{\"link\": \"r\"}"), null).await().id());
    }
    for (NodeId board : boards) {
      for (NodeId pin : pins) {
        store.addEdge(board, "board_has_pins", pin, null, null, InverseWait.APPLIED).await();
      }
    }
    tables.awaitOutboxesDrained(Duration.ofSeconds(30));
    fixture.backend.repairs().edges("board_has_pins", line -> { }).await();

    // Three inverses deleted, two altered, two inverses with no forward edge.
    for (int i = 0; i < 3; i++) {
      deleteInverse(boards.get(i), pins.get(i));
    }
    alterInverse(boards.get(3), pins.get(0));
    alterInverse(boards.get(3), pins.get(1));
    NodeId lonelyBoard = store.createNode("board", json("{\"title\": \"lonely\"}"), null).await().id();
    insertOrphan(pins.get(2), lonelyBoard);
    insertOrphan(pins.get(3), lonelyBoard);

    List<String> progress = new CopyOnWriteArrayList<>();
    RepairReport report = fixture.backend.repairs().edges("board_has_pins", progress::add).await();

    assertThat(report.missingInverse()).isEqualTo(3);
    assertThat(report.differing()).isEqualTo(2);
    assertThat(report.orphanedInverse()).isEqualTo(2);
    assertThat(report.fixed()).isEqualTo(7);
    assertThat(progress).as("a line per shard and table, then a summary").hasSizeGreaterThan(2 * TestBackend.SHARDS);
    assertThat(progress.get(progress.size() - 1)).startsWith("done").doesNotContain("RepairReport");
    assertMirrors();
    assertThat(store.countEdges(lonelyBoard, "board_has_pins").await()).as("the orphans' forward edges exist").isEqualTo(2);

    RepairReport again = fixture.backend.repairs().edges("board_has_pins", line -> { }).await();
    assertThat(again.fixed() + again.missingInverse() + again.differing() + again.orphanedInverse()).isZero();
  }

  @Test
  void deadPairsStampedDifferently_areNoDamage_andAnArchivedCopyWithNoMirror_isRepaired() throws Exception {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"d\"}"), null).await().id();
    NodeId removed = store.createNode("pin", json("{\"link\": \"r\"}"), null).await().id();
    NodeId hidden = store.createNode("pin", json("{\"link\": \"h\"}"), null).await().id();
    store.addEdge(board, "board_has_pins", removed, 3L, null, InverseWait.APPLIED).await();
    store.removeEdge(board, "board_has_pins", removed, InverseWait.APPLIED).await();
    store.addEdge(board, "board_has_pins", hidden, 4L, null, EdgeState.ARCHIVED, InverseWait.APPLIED).await();
    fixture.backend.repairs().edges("board_has_pins", line -> { }).await();
    // The removed edge's inverse as the placeholder an older build's lock left; the archived edge's inverse lost.
    tables.execute(removed.shard(), "UPDATE " + tables.edgesTable("pin_owned_by_board").on(removed.shard())
        + " SET sequence = 0, data = NULL, updated_us = 0 WHERE from_id = " + removed.value()
        + " AND to_id = " + board.value());
    tables.execute(hidden.shard(), "DELETE FROM " + tables.edgesTable("pin_owned_by_board").on(hidden.shard())
        + " WHERE from_id = " + hidden.value() + " AND to_id = " + board.value());

    RepairReport report = fixture.backend.repairs().edges("board_has_pins", line -> { }).await();

    assertThat(report.differing()).as("two tombstones read alike: %s", report).isZero();
    assertThat(report.missingInverse()).as("the archived copy's lost mirror: %s", report).isEqualTo(1);
    assertThat(report.fixed()).isEqualTo(1);
    assertThat(store.getEdge(hidden, "pin_owned_by_board", board).await().state()).isEqualTo(EdgeState.ARCHIVED);
    RepairReport again = fixture.backend.repairs().edges("board_has_pins", line -> { }).await();
    assertThat(again.fixed() + again.missingInverse() + again.differing() + again.orphanedInverse()).isZero();
  }

  @Test
  void pairsWithAnOutboxEntryStillPending_areReportedInFlight_andLeftToTheirEntry() throws Exception {
    GraphStore store = fixture.store;
    NodeId board = store.createNode("board", json("{\"title\": \"busy\"}"), null).await().id();
    NodeId moved = store.createNode("pin", json("{\"link\": \"m\"}"), null).await().id();
    NodeId unwritten = store.createNode("pin", json("{\"link\": \"u\"}"), null).await().id();
    store.addEdge(board, "board_has_pins", moved, 5L, null, InverseWait.APPLIED).await();
    store.addEdge(board, "board_has_pins", unwritten, 6L, null, InverseWait.APPLIED).await();
    fixture.backend.repairs().edges("board_has_pins", line -> { }).await();
    // As a write whose inverse is still on its way leaves things: the forward copy changed (or the
    // inverse not yet there), and an entry waiting in the forward shard's outbox (held back here).
    tables.execute(board.shard(), "UPDATE " + tables.edgesTable("board_has_pins").on(board.shard())
        + " SET sequence = 99, updated_us = updated_us + 1000 WHERE from_id = " + board.value()
        + " AND to_id = " + moved.value());
    deleteInverse(board, unwritten);
    int inverseType = tables.edgesTable("pin_owned_by_board").type().id();
    tables.appendInverseEntry(board.shard(), inverseType, moved, board, true);
    tables.appendInverseEntry(board.shard(), inverseType, unwritten, board, true);

    RepairReport report;
    try {
      report = fixture.backend.repairs().edges("board_has_pins", line -> { }).await();
    } finally {
      letGo(board.shard());
    }

    assertThat(report.inFlight()).isEqualTo(2);
    assertThat(report.missingInverse() + report.differing() + report.orphanedInverse()).as("no damage").isZero();
    assertThat(report.fixed()).as("nothing fixed against a pending entry").isZero();
    tables.awaitOutboxesDrained(Duration.ofSeconds(30));
    fixture.backend.repairs().edges("board_has_pins", line -> { }).await();
    assertMirrors();
  }

  /** Lets the shard's held-back entries go: due now. */
  private static void letGo(int shard) throws Exception {
    tables.execute(shard, "UPDATE " + tables.outboxTable().on(shard) + " SET next_attempt_us = 0"
        + " WHERE next_attempt_us = " + ShardTables.HELD_BACK_US);
  }

  /** A lost inverse: its active row gone, and with it the count it added (they commit together). */
  private static void deleteInverse(NodeId board, NodeId pin) throws Exception {
    tables.execute(pin.shard(), "DELETE FROM " + tables.edgesTable("pin_owned_by_board").on(pin.shard())
        + " WHERE from_id = " + pin.value() + " AND to_id = " + board.value());
    tables.execute(pin.shard(), "UPDATE " + CountsTable.INSTANCE.on(pin.shard()) + " SET count = count - 1"
        + " WHERE from_id = " + pin.value() + " AND edge_type = " + tables.edgesTable("pin_owned_by_board").type().id());
  }

  private static void alterInverse(NodeId board, NodeId pin) throws Exception {
    tables.execute(pin.shard(), "UPDATE " + tables.edgesTable("pin_owned_by_board").on(pin.shard())
        + " SET sequence = sequence - 1000 WHERE from_id = " + pin.value() + " AND to_id = " + board.value());
  }

  private static void insertOrphan(NodeId pin, NodeId board) throws Exception {
    tables.execute(pin.shard(), "INSERT INTO " + tables.edgesTable("pin_owned_by_board").on(pin.shard())
        + " (from_id, to_id, sequence, state, data, updated_us) VALUES (" + pin.value() + ", " + board.value()
        + ", 1, 1, NULL, " + (System.currentTimeMillis() * 1000) + ")");
    tables.execute(pin.shard(), "INSERT INTO " + CountsTable.INSTANCE.on(pin.shard())
        + " (from_id, edge_type, count) VALUES (" + pin.value() + ", "
        + tables.edgesTable("pin_owned_by_board").type().id() + ", 1) ON DUPLICATE KEY UPDATE count = count + 1");
  }

  /** Every live copy has its mirror, the same version (dead copies read alike, whatever their stamps). */
  private static void assertMirrors() throws Exception {
    Map<Key, EdgeRow> mirrored = new HashMap<>();
    tables.edges("board_has_pins").forEach((key, row) -> {
      if (row.live()) {
        mirrored.put(key.mirror(), row);
      }
    });
    Map<Key, EdgeRow> inverse = new HashMap<>(tables.edges("pin_owned_by_board"));
    inverse.values().removeIf(row -> !row.live());
    assertThat(inverse).isEqualTo(mirrored);
  }
}
