package io.quiver.api.outbox;

import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.ApplierSettings;
import io.quiver.store.NodeId;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A drainer is woken by commits, its own server's and the others', and polls only as a safety
 * net: an idle server does not read its outboxes several times a second to find the inverses of
 * other servers' writes.
 */
@ExtendWith(GraphInvariants.class)
class DrainerWakeTest {
  /** Far longer than the test waits: a pass that comes, comes because it was woken. */
  private static final Duration IDLE = Duration.ofSeconds(30);

  @Test
  void anEdgeWrittenThroughAServerThatDrainsNothing_getsItsInverseAtOnce_fromTheServerThatDrains() throws Exception {
    ApplierSettings shared = TestBackend.applierSettings();
    ApplierSettings idle = new ApplierSettings("/quiver-test/drainer-wake/leases", shared.batchSize(), IDLE,
        shared.maxAttempts(), shared.maxBackoff(), shared.tombstoneGrace(), shared.gcInterval(), shared.busyPause());
    ShardTables tables = new ShardTables(TestBackend.get());
    tables.awaitOutboxesDrained(Duration.ofSeconds(20));
    // Started first, the drainer takes every host's lease; the writer, after it, drains nothing.
    try (ApiFixture drainer = ApiFixture.withApplier(idle)) {
      Await.until("the first server drains both hosts", Duration.ofSeconds(10),
          () -> drainer.server.backend().telemetry().outboxStats().await().size() == 2);
      try (ApiFixture writer = ApiFixture.withApplier(idle)) {
        assertThat(writer.server.backend().telemetry().outboxStats().await()).as("the writer drains nothing").isEmpty();
        Await.until("the servers know each other", Duration.ofSeconds(5),
            () -> drainer.server.cache().orElseThrow().peerCount() > 0 && writer.server.cache().orElseThrow().peerCount() > 0);

        List<NodeId> users = new ArrayList<>();
        for (int i = 0; i < 6; i++) {
          users.add(NodeId.parse(writer.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"w\"}}").id()).orElseThrow());
        }
        for (int i = 1; i < users.size(); i++) {
          writer.call(PUT, "/v1/nodes/" + users.get(0) + "/edges/follows/" + users.get(i), "{\"sequence\": " + i + "}");
        }

        long started = System.nanoTime();
        Await.until("every inverse written, long before the drainer's idle pass", Duration.ofSeconds(3),
            () -> users.subList(1, users.size()).stream().allMatch(user -> inverseWritten(writer, user, users.get(0))));
        System.out.printf("drainer wake: %d inverses written by the other server %d ms after the last write%n",
            users.size() - 1, (System.nanoTime() - started) / 1_000_000);
      }
    }
  }

  /** Read from MariaDB, past every cache. */
  private static boolean inverseWritten(ApiFixture server, NodeId user, NodeId follower) {
    return server.server.backend().store().getEdge(user, "followed_by", follower).map(edge -> edge.state()
        == io.quiver.store.EdgeState.ACTIVE).otherwise(false).await();
  }
}
