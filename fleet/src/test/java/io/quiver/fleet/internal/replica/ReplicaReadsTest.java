package io.quiver.fleet.internal.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.embedded.EmbeddedMariaDb;
import io.quiver.fleet.testing.ReplicatedFleet;
import io.quiver.store.EdgeQuery;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.Node;
import io.quiver.store.ReplicaReadSettings;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * Reads that tolerate bounded staleness, on real MariaDB servers of their own (h1 and its replica;
 * h2 is the test backend's): answered by the replica when the primary is frozen, within the hedge
 * delay and after the primary is marked down; never by a replica lagging beyond the bound; and
 * default reads never by a replica at all. No failover runs here: the primary stays frozen.
 */
class ReplicaReadsTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Duration MAX_LAG = Duration.ofSeconds(1);
  private static final Duration HEDGE_AFTER = Duration.ofMillis(50);

  private ReplicatedFleet fleet;
  private EmbeddedMariaDb primary;
  private EmbeddedMariaDb replica;
  private GraphBackend backend;

  @BeforeEach
  void startFleet() throws Exception {
    fleet = new ReplicatedFleet(80, 1,
        backend -> backend.replicaReads(new ReplicaReadSettings(MAX_LAG, HEDGE_AFTER, Duration.ofMillis(50), 4)),
        (admin, built) -> admin);
    primary = fleet.primary;
    replica = fleet.replicas.get(0);
    backend = fleet.backend;
  }

  @AfterEach
  void stopFleet() {
    if (fleet != null) {
      primary.thaw();
      fleet.close();
    }
  }

  @Test
  void withThePrimaryFrozen_staleTolerantReadsAreAnsweredByTheReplica_withinTheHedgeDelay_andDefaultReadsAreNot()
      throws Exception {
    GraphStore store = backend.store();
    Node board = fleet.boardOnH1("kept");
    Node pin = store.createNode("pin", json("{\"link\": \"l\"}"), board.id()).await();
    store.addEdge(board.id(), "board_has_pins", pin.id(), null, null).await();
    awaitReplicaWithinBound();

    primary.freeze();
    long before = backend.telemetry().replicaReads().answeredByReplica();
    // Before the probe marks the primary down: each read waits the hedge delay, then the replica answers.
    long slowestHedged = 0;
    for (int i = 0; i < 5; i++) {
      long started = System.nanoTime();
      assertThat(store.staleTolerant().getNode(board.id()).await().data().path("title").asText()).isEqualTo("kept");
      slowestHedged = Math.max(slowestHedged, elapsedMs(started));
    }
    assertThat(slowestHedged).as("answered by the replica soon after the hedge delay").isLessThan(700);
    assertThat(backend.telemetry().replicaReads().hedged()).isPositive();
    Await.until("the frozen primary marked down", Duration.ofSeconds(10),
        () -> !backend.telemetry().hostsAnswering().get("h1"));
    // Marked down: sent to the replica at once, pages and counts alike, for as long as it stays fresh.
    long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
    long slowestRouted = 0;
    while (System.nanoTime() < until) {
      long started = System.nanoTime();
      assertThat(store.staleTolerant().getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(10)).await()
          .edges()).hasSize(1);
      assertThat(store.staleTolerant().countEdges(board.id(), "board_has_pins").await()).isEqualTo(1);
      slowestRouted = Math.max(slowestRouted, elapsedMs(started));
      Thread.sleep(100);
    }
    System.out.printf("primary frozen: hedged reads answered within %d ms (hedge delay %d ms); with the primary marked"
        + " down, a page and a count within %d ms%n", slowestHedged, HEDGE_AFTER.toMillis(), slowestRouted);
    assertThat(slowestRouted).isLessThan(500);
    assertThat(backend.telemetry().replicaReads().answeredByReplica() - before).isGreaterThanOrEqualTo(10);
    assertThat(backend.telemetry().replicaLags().get("h1").get(replica.address()))
        .as("a replica that has applied all it received is current though its primary is silent")
        .isBetween(0L, MAX_LAG.toMillis());
    assertThatThrownBy(() -> store.getNode(board.id()).await())
        .as("a default read never goes to a replica").isInstanceOf(GraphException.class)
        .extracting(failure -> ((GraphException) failure).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
  }

  @Test
  void aReplicaLaggingBeyondTheBound_neverAnswers_andAnswersAgainOnceItHasAppliedEveryAcknowledgedWrite()
      throws Exception {
    GraphStore store = backend.store();
    Node board = fleet.boardOnH1("v1");
    awaitReplicaWithinBound();

    // The replica keeps receiving (and confirming) writes but applies none.
    execute(replica, "STOP SLAVE SQL_THREAD");
    store.updateNode(board.id(), json("{\"title\": \"v2\"}"), GraphStore.ANY_VERSION).await();
    Await.until("the replica known to lag beyond the bound", Duration.ofSeconds(10),
        () -> backend.telemetry().replicaLags().get("h1").get(replica.address()) > MAX_LAG.toMillis());
    primary.freeze();
    Await.until("the frozen primary marked down", Duration.ofSeconds(10),
        () -> !backend.telemetry().hostsAnswering().get("h1"));
    for (int i = 0; i < 5; i++) {
      assertThatThrownBy(() -> store.staleTolerant().getNode(board.id()).await())
          .as("the replica holds v1 only: refused, never answered with it")
          .isInstanceOf(GraphException.class)
          .hasMessageContaining("none of its replicas is within the lag bound");
    }

    execute(replica, "START SLAVE SQL_THREAD");
    Await.until("the replica within the bound again", Duration.ofSeconds(10),
        () -> backend.telemetry().replicaLags().get("h1").get(replica.address()) <= MAX_LAG.toMillis());
    assertThat(store.staleTolerant().getNode(board.id()).await().data().path("title").asText())
        .as("every acknowledged write applied: the replica answers, with v2").isEqualTo("v2");
  }

  private void awaitReplicaWithinBound() throws Exception {
    Await.until("the replica's lag measured within the bound", Duration.ofSeconds(10), () -> {
      Long lag = backend.telemetry().replicaLags().getOrDefault("h1", Map.of()).get(replica.address());
      return lag != null && lag >= 0 && lag <= MAX_LAG.toMillis() / 2;
    });
  }

  private static long elapsedMs(long startedNanos) {
    return (System.nanoTime() - startedNanos) / 1_000_000;
  }

  private static void execute(EmbeddedMariaDb server, String sql) throws Exception {
    ReplicatedFleet.execute(server, sql);
  }

  private static ObjectNode json(String literal) {
    try {
      return (ObjectNode) JSON.readTree(literal);
    } catch (Exception e) {
      throw new IllegalArgumentException(literal, e);
    }
  }
}
