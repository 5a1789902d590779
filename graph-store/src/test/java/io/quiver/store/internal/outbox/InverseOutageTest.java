package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.store.EdgeResult;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.OutboxStats;
import io.quiver.store.PoolSettings;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * While the TO host is down, forward writes keep succeeding and the inverses catch up once it
 * returns; a host that freezes instead costs the drainers and their figures no more than the
 * statement deadline.
 */
@ExtendWith(GraphInvariants.class)
class InverseOutageTest {
  private static StoreFixture fixture;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  private static NodeId createOn(String host, String type, String data) {
    for (int i = 0; i < 200; i++) {
      NodeId id = fixture.store.createNode(type, json(data), null).await().id();
      if (TestBackend.get().shardMap().rangeOf(id.shard()).orElseThrow().host().equals(host)) {
        return id;
      }
    }
    throw new AssertionError("nothing landed on " + host);
  }

  @Test
  void toHostDown_forwardWritesSucceed_andInversesCatchUpAfterItReturns() throws Exception {
    GraphStore store = fixture.store;
    NodeId board = createOn("h1", "board", "{\"title\": \"t\"}");
    List<NodeId> pins = new ArrayList<>();
    for (int i = 0; i < 5; i++) {
      pins.add(createOn("h2", "pin", "{\"link\": \"l\"}"));
    }
    ShardTables tables = new ShardTables(TestBackend.get());
    tables.awaitOutboxesDrained(Duration.ofSeconds(30));

    TestBackend.get().hosts().stop(1);
    try {
      for (NodeId pin : pins) {
        EdgeResult added = store.addEdge(board, "board_has_pins", pin, null, null, InverseWait.APPLIED).await();
        assertThat(added.inverse()).as("the inverse cannot be written yet").isEqualTo(EdgeResult.Inverse.PENDING);
      }
      assertThat(store.countEdges(board, "board_has_pins").await()).isEqualTo(pins.size());
      Thread.sleep(1500);
      assertThat(fixture.backend.telemetry().outboxStats().await().get("h1").pending()).as("waiting in h1's outboxes").isEqualTo(pins.size());
    } finally {
      TestBackend.get().hosts().start(1);
    }

    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    for (NodeId pin : pins) {
      Throwable lastFailure = null;
      while (true) {
        Future<?> read = store.getEdge(pin, "pin_owned_by_board", board);
        read.otherwiseEmpty().await();
        if (read.succeeded() && read.result() != null) {
          break;
        }
        lastFailure = read.cause();
        if (System.nanoTime() > deadline) {
          throw new AssertionError("the inverse of " + pin + " did not arrive; hosts answering: "
              + fixture.backend.telemetry().hostsAnswering() + "; the last read failed with: " + lastFailure
              + "; outboxes:\n" + String.join("\n", tables.describeOutboxes()));
        }
        Thread.sleep(50);
      }
    }
    assertThat(tables.outboxEntries(true)).as("nothing parked: an outage is waited out").isZero();
  }

  @Test
  void aHostFrozenMidPoll_isLeftOutOfTheOutboxFigures_withinTheStatementDeadline_andDrainsAgainOnceThawed()
      throws Exception {
    PoolSettings pools = TestBackend.get().poolSettings();
    Duration bound = pools.acquireTimeout().plus(pools.statementTimeout());
    // h2 answering first (another test may have just restarted it: while the probe still calls it
    // down its shards are not measured at all, and a frozen host would go unnoticed), then measured
    // once, so the drainers hold connections to h2 open and idle when it freezes.
    Await.until("h2 answering before it freezes", Duration.ofSeconds(20),
        () -> fixture.backend.telemetry().hostsAnswering().get("h2"));
    assertThat(fixture.backend.telemetry().outboxStats().await()).containsKeys("h1", "h2");
    TestBackend.get().hosts().freeze(1);
    try {
      // Asked at once, before the probe calls h2 down: the depth statements go out on those idle
      // connections, and the frozen host never answers them.
      long started = System.nanoTime();
      Map<String, OutboxStats> stats = fixture.backend.telemetry().outboxStats().toCompletionStage()
          .toCompletableFuture().get(bound.toMillis() + 10_000, TimeUnit.MILLISECONDS);
      Duration took = Duration.ofNanos(System.nanoTime() - started);
      assertThat(took).as("answered within the statement deadline, not when the host thaws")
          .isLessThan(bound.plusSeconds(1));
      assertThat(stats).as("the frozen host is left out, the other measured").containsKey("h1").doesNotContainKey("h2");
    } finally {
      TestBackend.get().hosts().thaw(1);
    }
    Await.until("h2 measured again once thawed", Duration.ofSeconds(20),
        () -> fixture.backend.telemetry().hostsAnswering().get("h2")
            && fixture.backend.telemetry().outboxStats().await().containsKey("h2"));
  }
}
