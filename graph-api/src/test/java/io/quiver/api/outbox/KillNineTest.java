package io.quiver.api.outbox;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiClient;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.embedded.Ports;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * A real server process, killed with SIGKILL in the middle of a burst of edge writes: after a
 * new process starts, every acknowledged edge is there, and so is its inverse.
 */
@ExtendWith(GraphInvariants.class)
class KillNineTest {
  private static final int WRITERS = 32;

  private final TestBackend backend = TestBackend.get();

  @Test
  void serverKilledMidBurst_losesNoAcknowledgedEdge_andEveryInverseArrives() throws Exception {
    int port = Ports.free();
    Path config = writeConfig(port);
    Process server = startServer(config, 1);
    List<String> boards = new ArrayList<>();
    List<String> pins = new ArrayList<>();
    Set<List<String>> acknowledged = ConcurrentHashMap.newKeySet();
    long pendingAtKill;
    // The kill resets the client's open connections, which Vert.x reports at ERROR: expected here.
    try (ExpectedLog resets = ExpectedLog.named("io.vertx.core.net.impl.ConnectionBase");
        ApiClient api = new ApiClient(port)) {
      try {
      awaitHealthy(api);
      for (int i = 0; i < 20; i++) {
        boards.add(api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"k\"}}").id());
        pins.add(api.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"k\"}}").id());
      }

      AtomicBoolean running = new AtomicBoolean(true);
      Random random = new Random(9);
      List<Future<Void>> writers = new ArrayList<>();
      for (int w = 0; w < WRITERS; w++) {
        writers.add(write(api, running, boards, pins, new Random(random.nextLong()), acknowledged));
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      while (acknowledged.size() < 200 && System.nanoTime() < deadline) {
        Thread.sleep(5);
      }
      server.destroyForcibly();
      server.waitFor();
      running.set(false);
      Future.join(writers).otherwiseEmpty().await();
        pendingAtKill = new ShardTables(backend).outboxEntries(false);
      } finally {
        server.destroyForcibly();
        server.waitFor();
      }
    }
    System.out.printf("killed with %d edges acknowledged and %d inverse operations pending%n",
        acknowledged.size(), pendingAtKill);
    assertThat(acknowledged).isNotEmpty();

    Process restarted = startServer(config, 2);
    try (ApiClient api = new ApiClient(port)) {
      awaitHealthy(api);
      for (List<String> edge : acknowledged) {
        assertThat(api.call(GET, "/v1/nodes/" + edge.get(0) + "/edges/board_has_pins/" + edge.get(1)).status())
            .as("acknowledged edge %s", edge).isEqualTo(200);
      }
      long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
      for (List<String> edge : acknowledged) {
        String inverse = "/v1/nodes/" + edge.get(1) + "/edges/pin_owned_by_board/" + edge.get(0);
        while (api.call(GET, inverse).status() != 200) {
          assertThat(System.nanoTime()).as("inverse of %s arrives", edge).isLessThan(deadline);
          Thread.sleep(20);
        }
      }
    } finally {
      restarted.destroyForcibly();
      restarted.waitFor();
    }
  }

  /** Adds random edges until stopped, remembering each one the server acknowledged. */
  private static Future<Void> write(ApiClient api, AtomicBoolean running, List<String> boards, List<String> pins,
      Random random, Set<List<String>> acknowledged) {
    if (!running.get()) {
      return Future.succeededFuture();
    }
    String board = boards.get(random.nextInt(boards.size()));
    String pin = pins.get(random.nextInt(pins.size()));
    return api.callAsync(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin, null)
        .map(answer -> {
          if (answer.status() == 200) {
            acknowledged.add(List.of(board, pin));
          }
          return null;
        })
        .recover(connectionLost -> Future.succeededFuture())
        .compose(done -> running.get() ? write(api, running, boards, pins, random, acknowledged)
            : Future.<Void>succeededFuture());
  }

  private Path writeConfig(int port) throws Exception {
    Path file = Files.createTempFile("kill-nine", ".json");
    Files.writeString(file, """
        {"http": {"port": %d},
         "zooKeeper": {"connect": "%s", "shardMapPath": "%s", "schemaPath": "%s", "sessionTimeoutMs": 4000},
         "mysql": {"user": "%s", "password": "%s"},
         "outbox": {"leasePath": "%s", "idleDelayMs": 10},
         "admin": {"token": "%s"}}
        """.formatted(port, backend.zooKeeperConnectString(), TestBackend.SHARD_MAP_PATH, TestBackend.SCHEMA_PATH,
        backend.hosts().user(), backend.hosts().password(), TestBackend.LEASE_PATH, TestBackend.ADMIN_TOKEN));
    return file;
  }

  private static Process startServer(Path config, int run) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    File log = new File("target/kill-nine-server-" + run + ".log");
    return new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"), "io.quiver.api.cli.Main",
        "serve", "--config", config.toString())
        .redirectErrorStream(true)
        .redirectOutput(log)
        .start();
  }

  private static void awaitHealthy(ApiClient api) throws InterruptedException {
    long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
    while (System.nanoTime() < deadline) {
      try {
        if (api.call(GET, "/health").status() == 200) {
          return;
        }
      } catch (Exception notYet) {
        // not listening yet (await rethrows the connection failure as it is)
      }
      Thread.sleep(100);
    }
    throw new AssertionError("the server did not become healthy");
  }
}
