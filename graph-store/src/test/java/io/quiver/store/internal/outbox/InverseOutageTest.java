package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.EdgeResult;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
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

/** While the TO host is down, forward writes keep succeeding; the inverses catch up once it returns. */
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
      while (store.getEdge(pin, "pin_owned_by_board", board).otherwiseEmpty().await() == null) {
        assertThat(System.nanoTime()).as("inverse of %s arrives", pin).isLessThan(deadline);
        Thread.sleep(50);
      }
    }
    assertThat(tables.outboxEntries(true)).as("nothing parked: an outage is waited out").isZero();
  }
}
