package io.quiver.api.server;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import ch.qos.logback.classic.Level;
import io.quiver.api.config.QuiverConfig;
import io.quiver.cache.CacheSettings;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaRule;
import io.quiver.store.ApplierSettings;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** Starting and stopping a server in order, and cleaning up after a start that fails part-way. */
class QuiverServerTest {
  private static final String LEASES = "/quiver-test/failed-start/leases";
  private static final String PEERS = "/quiver-test/failed-start/peers";

  @Test
  void start_failingAfterItJoinedZooKeeper_closesWhatItStarted_andLeavesNoLeaseOrPeerBehind() throws Exception {
    TestBackend backend = TestBackend.get();
    // A seed the registry refuses: a new type taking the id 'user' has. It is applied after the
    // server has joined its outbox leases and the cache peers, so a start that left them open would show.
    Schema refused = SchemaJson.parse("""
        {"version": 1, "nodeTypes": {"impostor": {"id": 1, "fields": {}}}, "edgeTypes": {}}""");

    assertThatThrownBy(() -> QuiverServer.start(config(backend), refused))
        .isInstanceOfSatisfying(GraphException.class,
            refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.TYPE_ID_NEVER_REUSED));

    assertThat(everythingUnder(backend.curator(), LEASES)).as("outbox lease participants").isEmpty();
    Await.until("no change-log source left", Duration.ofSeconds(5),
        () -> everythingUnder(backend.curator(), LEASES + "-sources").isEmpty());
    assertThat(everythingUnder(backend.curator(), LEASES + "-sources")).as("change-log sources").isEmpty();
    assertThat(everythingUnder(backend.curator(), PEERS)).as("cache peer registrations").isEmpty();
  }

  @Test
  void start_besideARunningServerOfTheOtherChangeLogSource_isRefusedSayingWhich_andOfTheSameSourceJoins()
      throws Exception {
    TestBackend backend = TestBackend.get();
    QuiverConfig writes = config(backend);
    QuiverConfig tailed = writes.withChangeLog(ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG));
    try (QuiverServer first = QuiverServer.start(tailed, null)) {
      assertThatThrownBy(() -> QuiverServer.start(writes, null))
          .isInstanceOfSatisfying(GraphException.class,
              refusal -> assertThat(refusal.code()).isEqualTo(GraphException.Code.INVALID_ARGUMENT))
          .hasMessageContaining("changes.source: binlog").hasMessageContaining("changes.source: writes")
          .hasMessageContaining("every server of a fleet must use the same");
      try (QuiverServer second = QuiverServer.start(tailed, null)) {
        assertThat(second.port()).isNotEqualTo(first.port());
      }
    }
    Await.until("the stopped servers' sources gone", Duration.ofSeconds(5),
        () -> everythingUnder(backend.curator(), LEASES + "-sources").isEmpty());
    assertThat(everythingUnder(backend.curator(), LEASES + "-sources")).isEmpty();
    try (QuiverServer afterwards = QuiverServer.start(writes, null)) {
      assertThat(afterwards.port()).isPositive();
    }
  }

  @Test
  void start_withZooKeeperUnreachable_failsWithinItsConnectTimeout_namingTheEnsemble() throws Exception {
    TestBackend backend = TestBackend.get();
    String nowhere = "127.0.0.1:" + io.quiver.embedded.Ports.free();
    QuiverConfig reachable = config(backend);
    QuiverConfig unreachable = new QuiverConfig(reachable.http(),
        new QuiverConfig.ZooKeeper(nowhere, TestBackend.SHARD_MAP_PATH, TestBackend.SCHEMA_PATH,
            Duration.ofSeconds(15), Duration.ofSeconds(1)),
        reachable.mysql(), reachable.outbox(), reachable.cache(), null, reachable.adminToken());

    // What Curator had queued before the start gave up fails when it closes, at ERROR: expected here.
    try (ExpectedLog log = ExpectedLog.named("org.apache.curator", "org.apache.zookeeper", "io.quiver")) {
      Set<Thread> before = zooKeeperThreads();
      long started = System.nanoTime();
      assertThatThrownBy(() -> QuiverServer.start(unreachable, null))
          .isInstanceOfSatisfying(GraphException.class, refusal -> assertThat(refusal.getMessage())
              .contains("cannot reach ZooKeeper at " + nowhere).contains("zooKeeper.connectTimeoutMs"));
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(Duration.ofSeconds(5));
      awaitZooKeeperThreadsGone(before);
      assertThat(log.loggers(Level.ERROR)).as("no error of Quiver's own").allMatch(name -> name.startsWith("org.apache"));
    }
  }

  @Test
  @org.junit.jupiter.api.Timeout(60)
  void stop_withZooKeeperGoneSilent_finishesWithinAFewSeconds() throws Exception {
    TestBackend backend = TestBackend.get();
    // Curator's recipes, cut off mid-close, say so at ERROR: expected here.
    try (ExpectedLog log = ExpectedLog.named("org.apache.curator", "org.apache.zookeeper", "io.quiver");
        io.quiver.api.testing.BlackHoleProxy zooKeeper =
        new io.quiver.api.testing.BlackHoleProxy(backend.zooKeeperConnectString())) {
      QuiverConfig direct = config(backend);
      ApplierSettings outbox = direct.outbox();
      Set<Thread> before = zooKeeperThreads();
      // Paths of its own: what a server stopped with ZooKeeper away leaves there lasts until its session expires.
      QuiverServer server = QuiverServer.start(new QuiverConfig(direct.http(),
          new QuiverConfig.ZooKeeper(zooKeeper.address(), TestBackend.SHARD_MAP_PATH, TestBackend.SCHEMA_PATH,
              Duration.ofSeconds(15)),
          direct.mysql(),
          outbox.withLeasePath("/quiver-test/silent-stop/leases"),
          CacheSettings.defaults().withPeersPath("/quiver-test/silent-stop/peers"), null, direct.adminToken()), null);
      zooKeeper.blackHole();

      long started = System.nanoTime();
      server.close();
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isLessThan(QuiverServer.STOP_BOUND.plusSeconds(1));
      // Curator's last callbacks run on the stopped server's ZooKeeper threads once the ensemble is
      // gone for good; caught here, they would otherwise say their ERROR after the capture ends.
      zooKeeper.close();
      awaitZooKeeperThreadsGone(before);
      assertThat(log.loggers(Level.ERROR)).as("no error of Quiver's own").allMatch(name -> name.startsWith("org.apache"));
    }
  }

  /**
   * Waits until every ZooKeeper client thread started since {@code before} has ended: Curator's
   * last callbacks run there after its client closed, and what they log must fall inside the
   * test's {@link ExpectedLog}, not after it.
   */
  private static void awaitZooKeeperThreadsGone(Set<Thread> before) throws InterruptedException {
    Await.until("the server's ZooKeeper threads end", Duration.ofSeconds(30),
        () -> before.containsAll(zooKeeperThreads()));
  }

  /** The live threads of ZooKeeper clients (each client's send and event threads). */
  private static Set<Thread> zooKeeperThreads() {
    Set<Thread> threads = new HashSet<>();
    for (Thread thread : Thread.getAllStackTraces().keySet()) {
      if (thread.isAlive() && (thread.getName().contains("-SendThread(") || thread.getName().endsWith("-EventThread"))) {
        threads.add(thread);
      }
    }
    return threads;
  }

  private static QuiverConfig config(TestBackend backend) {
    ApplierSettings outbox = TestBackend.applierSettings();
    return new QuiverConfig(
        new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES),
        new QuiverConfig.ZooKeeper(backend.zooKeeperConnectString(), TestBackend.SHARD_MAP_PATH,
            TestBackend.SCHEMA_PATH, Duration.ofSeconds(15)),
        backend.poolSettings(),
        outbox.withLeasePath(LEASES),
        CacheSettings.defaults().withPeersPath(PEERS),
        null,
        TestBackend.ADMIN_TOKEN);
  }

  /** Every znode below {@code path} that is not itself a parent: ephemeral registrations. */
  private static List<String> everythingUnder(CuratorFramework curator, String path) throws Exception {
    List<String> leaves = new ArrayList<>();
    if (curator.checkExists().forPath(path) == null) {
      return leaves;
    }
    for (String child : curator.getChildren().forPath(path)) {
      String childPath = path + "/" + child;
      List<String> below = everythingUnder(curator, childPath);
      if (curator.getChildren().forPath(childPath).isEmpty()
          && curator.checkExists().forPath(childPath).getEphemeralOwner() != 0) {
        leaves.add(childPath);
      }
      leaves.addAll(below);
    }
    return leaves;
  }
}
