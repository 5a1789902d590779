package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import ch.qos.logback.classic.Level;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.store.ApplierSettings;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * An outbox entry that can never be applied is parked, and holds up nothing behind it; one whose
 * host cannot take it for now (out of space) waits for it and never parks.
 */
@ExtendWith(GraphInvariants.class)
class ParkingTest {
  private static StoreFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    // Eight attempts with doubling backoff: the failing entry is retried for about two and a half
    // seconds before it parks, far longer than the work queued behind it takes.
    ApplierSettings base = TestBackend.applierSettings();
    fixture = new StoreFixture(new ApplierSettings(base.leasePath(), base.batchSize(), base.idleDelay(), 8,
        base.maxBackoff(), base.tombstoneGrace(), base.gcInterval(), base.busyPause()));
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  @GraphInvariants.ParksOutboxEntries
  void anEntryThatAlwaysFails_isParkedWithItsError_andHoldsUpNoEntryQueuedBehindIt() throws Exception {
    try (ExpectedLog log = ExpectedLog.of(OutboxDrainer.class)) {
      ShardTables tables = new ShardTables(TestBackend.get());
      tables.awaitOutboxesDrained(Duration.ofSeconds(30));
      // An operation for an edge type id no schema knows: it can never be applied. It goes first
      // into the outbox of the shard the boards below are on.
      NodeId board = fixture.store.createNode("board", json("{\"title\": \"behind a poisoned entry\"}"), null)
          .await().id();
      NodeId poisoned = NodeId.of(board.shard(), 1, 1);
      tables.appendInverseEntry(board.shard(), 999, poisoned, poisoned);

      // Work queued behind it on the same shard's outbox: inverse edges to write.
      List<NodeId> pins = new ArrayList<>();
      for (int i = 0; i < 20; i++) {
        NodeId pin = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), null).await().id();
        fixture.store.addEdge(board, "board_has_pins", pin, null, null).await();
        pins.add(pin);
      }

      // Every inverse behind it is written while it is still being retried, long before it parks.
      Await.until("the inverses behind the failing entry are written", Duration.ofSeconds(10),
          () -> allInversesWritten(tables, board, pins));
      assertThat(tables.outboxEntries(true)).as("not parked yet: it was still being retried").isZero();

      Await.until("the entry is parked", Duration.ofSeconds(30), () -> tables.outboxEntries(true) > 0);
      assertThat(log.await(Level.ERROR, "parking outbox entry", Duration.ofSeconds(5)))
          .as("parking is reported with the entry's error").contains("after 8 attempts")
          .contains("edge type id 999 is not in the schema");
      assertThat(tables.describeOutboxes()).as("the parked entry keeps its attempts and its error, for an operator")
          .anyMatch(line -> line.contains(" 8 attempts") && line.contains(", parked, last error: ")
              && line.contains("edge type id 999 is not in the schema"));
      assertThat(tables.outboxEntries(false)).as("nothing else waits behind it").isZero();
      tables.execute(board.shard(), "DELETE FROM " + tables.outboxTable().on(board.shard()) + " WHERE edge_type = 999");
    }
  }

  @Test
  void anInverseWhoseHostIsOutOfSpace_isRetriedWithoutCountingTowardParking_andWrittenOnceSpaceReturns()
      throws Exception {
    ShardTables tables = new ShardTables(TestBackend.get());
    tables.awaitOutboxesDrained(Duration.ofSeconds(30));
    NodeId board = fixture.store.createNode("board", json("{\"title\": \"its pin's host is full\"}"), null).await().id();
    NodeId pin = fixture.store.createNode("pin", json("{\"link\": \"l\"}"), null).await().id();
    // What InnoDB answers an INSERT whose tablespace cannot grow on a full disk: error 1114, "The
    // table is full". A trigger answers it here for the pin's copy of the edge alone.
    String inverses = tables.edgesTable("pin_owned_by_board").on(pin.shard());
    String trigger = inverses.replace(".`", ".`full_");
    tables.execute(pin.shard(), "CREATE TRIGGER " + trigger + " BEFORE INSERT ON " + inverses
        + " FOR EACH ROW SIGNAL SQLSTATE 'HY000' SET MYSQL_ERRNO = 1114, MESSAGE_TEXT = 'The table is full'");
    try {
      fixture.store.addEdge(board, "board_has_pins", pin, null, null).await();

      Await.until("the drainer has tried the inverse and failed", Duration.ofSeconds(10),
          () -> tables.describeOutboxes().stream().anyMatch(line -> !line.endsWith("last error: null")));
      assertThat(tables.describeOutboxes()).as("a full host is an outage: the entry waits for it, never parks")
          .singleElement().asString().contains(" 0 attempts", "last error: host h").doesNotContain("parked")
          .contains("is out of space or memory (MySQL error 1114)");
      String host = fixture.hosts.shardMap().rangeOf(pin.shard()).orElseThrow().host();
      Await.until("the host is reported degraded, so that new nodes go elsewhere", Duration.ofSeconds(10),
          () -> String.valueOf(fixture.backend.telemetry().hostProblems().get(host))
              .startsWith("degraded: it is out of space or memory: it refused a statement with MySQL error 1114"));
    } finally {
      tables.execute(pin.shard(), "DROP TRIGGER IF EXISTS " + trigger);
      // Should it have parked, the test after this one must not find it.
      tables.execute(board.shard(), "UPDATE " + tables.outboxTable().on(board.shard()) + " SET parked = 0 WHERE parked = 1");
    }
    Await.until("the inverse is written once the host has space", Duration.ofSeconds(10),
        () -> allInversesWritten(tables, board, List.of(pin)));
    tables.awaitOutboxesDrained(Duration.ofSeconds(10));
  }

  private static boolean allInversesWritten(ShardTables tables, NodeId board, List<NodeId> pins) throws Exception {
    var inverses = tables.edges("pin_owned_by_board");
    return pins.stream().allMatch(pin -> {
      var row = inverses.get(new ShardTables.Key(pin.value(), board.value()));
      return row != null && row.active();
    });
  }
}
