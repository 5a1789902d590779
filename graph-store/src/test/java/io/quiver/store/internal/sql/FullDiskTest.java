package io.quiver.store.internal.sql;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.embedded.EmbeddedMariaDb;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ApplierSettings;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.quiver.store.PoolSettings;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapSource;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;

/**
 * A host whose disk fills: its binary log on a small tmpfs, so that a COMMIT that must grow it
 * waits in MariaDB "for someone to free space", with no timeout, and every COMMIT on the host
 * queues behind it. The host still answers its probe. What must hold: the stall is reported
 * ({@code degraded}, naming why) while it lasts; the statements past their deadline are killed on
 * the server, so the pool's connections come back within the deadline; new nodes go to the other
 * host; and once the space is freed, every acknowledged edge has both copies and every pair
 * written, whatever its answer, has converged.
 *
 * <p>Here the change log is written by the writes, each edge's inverse queued in an outbox entry
 * committed with it: the stalled COMMITs are killed, MariaDB commits them and turns its binary log
 * off, and the operator restarts the host to turn it on again. {@link TailedFullDiskTest} runs the
 * same with the log and the inverses read from the binary log, where nothing may commit unlogged.
 *
 * <p>Mounting a tmpfs needs root (CI runs as root); elsewhere the test is skipped, saying why.
 * Two MariaDB hosts of its own, so that the shared backend's hosts never fill.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
class FullDiskTest {
  private static final int SHARDS = 8;
  protected static final Duration DEADLINE = Duration.ofMillis(1500);

  private Path binlogs;
  private Path filler;
  private EmbeddedMariaDb healthy;
  protected EmbeddedMariaDb filling;
  private Vertx vertx;
  protected GraphBackend backend;
  private ShardMap map;
  /** What the MariaDB servers print: the filling one's disk-full errors are expected, not shown. */
  private ExpectedLog mariaDbSays;

  @BeforeAll
  void start() throws Exception {
    binlogs = Path.of("target", "full-disk-" + System.nanoTime()).toAbsolutePath();
    Files.createDirectories(binlogs);
    String why;
    try {
      Process mount = new ProcessBuilder("mount", "-t", "tmpfs", "-o", "size=3m", "tmpfs", binlogs.toString())
          .redirectErrorStream(true).start();
      boolean mounted = mount.waitFor(10, TimeUnit.SECONDS) && mount.exitValue() == 0;
      why = mounted ? null : new String(mount.getInputStream().readAllBytes()).trim();
    } catch (IOException noMount) {
      why = noMount.getMessage();
    }
    if (why != null) {
      binlogs = null;
    }
    Assumptions.assumeTrue(why == null, "a tmpfs for the filling host's binary log could not be mounted (needs root): "
        + why);
    mariaDbSays = ExpectedLog.named("ch.vorburger.exec.ManagedProcess");
    healthy = EmbeddedMariaDb.start(null, 0);
    filling = EmbeddedMariaDb.start(null, 0, List.of("--log-bin=" + binlogs + "/mysql-bin", "--max-binlog-size=4096"));
    map = new ShardMap(1,
        Map.of("h1", new Host("h1", healthy.address(), List.of()), "h2", new Host("h2", filling.address(), List.of())),
        List.of(new ShardRange(0, 3, "h1"), new ShardRange(4, 7, "h2")), List.of(new ShardSpan(0, 7)), Map.of());
    TestBackend test = TestBackend.get();
    test.provision(map, test.schema());
    PoolSettings pools = new PoolSettings(test.hosts().user(), test.hosts().password(), 8, 256, Duration.ofMillis(500),
        Duration.ofMillis(800), 256, 16, DEADLINE, PoolSettings.DEFAULT_DOWN_AFTER);
    vertx = Vertx.vertx();
    ApplierSettings applier = TestBackend.applierSettings();
    backend = GraphStore.builder(vertx)
        .pools(pools)
        .shardMaps(ShardMapSource.fixed(map))
        .schemas(SchemaSource.fixed(test.schema()))
        .changeLog(changeLog())
        .drainOutboxes(test.curator(), applier.withLeasePath("/quiver-test-full-disk/leases"))
        .build();
  }

  @AfterAll
  void stop() throws Exception {
    if (backend != null) {
      backend.close().await();
      vertx.close().await();
    }
    if (filling != null) {
      filling.close();
      healthy.close();
    }
    if (binlogs != null) {
      new ProcessBuilder("umount", binlogs.toString()).start().waitFor(10, TimeUnit.SECONDS);
    }
    if (mariaDbSays != null) {
      mariaDbSays.close();
    }
  }

  /** Where the change log and the inverses come from: here the writes (each inverse an outbox entry). */
  protected ChangeLogSettings changeLog() {
    return ChangeLogSettings.defaults().from(ChangeLogSettings.Source.WRITES);
  }

  /** One edge written while the disk fills: its ends, and what the write was answered. */
  private record Written(NodeId from, String type, NodeId to, Future<?> answer) {}

  @Test
  void aHostWhoseBinaryLogCannotGrow_isReportedDegraded_placesNewNodesElsewhere_andEveryAcknowledgedEdgeHasBothCopies()
      throws Exception {
    GraphStore store = backend.store();
    List<NodeId> onHealthy = new ArrayList<>();
    List<NodeId> onFilling = new ArrayList<>();
    while (onHealthy.size() < 20 || onFilling.size() < 20) {
      NodeId user = store.createNode("user", json("{\"name\": \"u\"}"), null).await().id();
      (user.shard() < 4 ? onHealthy : onFilling).add(user);
    }
    fillAllBut(96 * 1024);
    // What the server says of h2, watched from the side every 20 ms while the edges are written.
    java.util.Set<String> said = java.util.concurrent.ConcurrentHashMap.newKeySet();
    java.util.concurrent.atomic.AtomicBoolean watching = new java.util.concurrent.atomic.AtomicBoolean(true);
    Thread watcher = new Thread(() -> {
      while (watching.get()) {
        String problem = backend.telemetry().hostProblems().get("h2");
        if (problem != null) {
          said.add(problem.replaceAll("[0-9]+ ms", "N ms"));
        }
        try {
          Thread.sleep(20);
        } catch (InterruptedException e) {
          return;
        }
      }
    });
    watcher.start();

    // Edges both ways between the hosts, written until h2 has been reported degraded for a while.
    List<Written> written = new ArrayList<>();
    long stalledAt = 0;
    for (int round = 0; round < 400 && (stalledAt == 0 || System.nanoTime() - stalledAt < secondsNanos(6)); round++) {
      List<Future<?>> batch = new ArrayList<>();
      for (int i = 0; i < 8; i++) {
        NodeId a = onHealthy.get((round * 8 + i) % onHealthy.size());
        NodeId b = onFilling.get((round * 8 + i * 7) % onFilling.size());
        boolean fromHealthy = i % 2 == 0;
        Written write = fromHealthy
            ? new Written(a, "follows", b, store.addEdge(a, "follows", b, (long) round, null, InverseWait.ASYNC))
            : new Written(b, "follows", a, store.addEdge(b, "follows", a, (long) round, null, InverseWait.ASYNC));
        written.add(write);
        batch.add(write.answer());
      }
      Future.join(batch).otherwiseEmpty().await();
      if (stalledAt == 0 && !said.isEmpty()) {
        stalledAt = System.nanoTime();
      }
    }
    watching.set(false);
    watcher.join();
    System.out.printf("full disk: h2 was reported %s%n", said);
    assertThat(said).as("h2 reported degraded while its commits stalled")
        .anyMatch(problem -> problem.startsWith("degraded: its commits stall"));
    whileStalled();
    assertThat(backend.telemetry().hostProblems()).doesNotContainKey("h1");
    for (int i = 0; i < 10; i++) {
      NodeId placed = store.createNode("user", json("{\"name\": \"elsewhere\"}"), null).await().id();
      assertThat(placed.shard()).as("new nodes go to the host that is not degraded").isLessThan(4);
    }
    Duration back = freeSpace();
    Await.until("h2 is no longer degraded once it has space", back,
        () -> !backend.telemetry().hostProblems().containsKey("h2"));
    Await.until("writes to h2 succeed again", back, () -> {
      Future<?> write = store.addEdge(onFilling.get(0), "follows", onHealthy.get(0), 1L, null, InverseWait.ASYNC);
      write.otherwiseEmpty().await();
      return write.succeeded();
    });
    awaitOutboxesEmpty();

    Map<String, Integer> answers = new HashMap<>();
    List<String> broken = new ArrayList<>();
    // Converged once the outboxes are empty, or (inverses from the tail) once the tailers have read
    // that far: awaited, and what is still broken then named below.
    try {
      Await.until("every pair written converges", Duration.ofSeconds(30), () -> {
        answers.clear();
        broken.clear();
        check(written, answers, broken);
        return broken.isEmpty();
      });
    } catch (AssertionError notYet) {
      // The assertion below names the pairs.
    }
    System.out.printf("full disk: %d edges written, answered %s%n", written.size(), answers);
    assertThat(answers).as("some writes were acknowledged, some refused by the stall").containsKey("acknowledged")
        .hasSizeGreaterThan(1);
    assertThat(broken).as("pairs one-sided, or acknowledged and missing").isEmpty();
  }

  /**
   * While h2's COMMITs stall, past the deadline. Here the stalled COMMITs were killed: MariaDB
   * committed them and turned its binary log off for good. Or MariaDB 11.4 died as a session was
   * killed mid-commit (seen once in a clean-clone run, the host then reported down): an upstream
   * crash this test cannot prevent, only report; what must hold after the restart holds either way.
   */
  protected void whileStalled() throws Exception {
    Await.until("h2 reported degraded for its binary log, or down", Duration.ofSeconds(10), () -> {
      String problem = String.valueOf(backend.telemetry().hostProblems().get("h2"));
      return problem.contains("binary log is off") || problem.startsWith("down:");
    });
    boolean died = backend.telemetry().hostProblems().get("h2").startsWith("down:");
    System.out.printf("full disk: after the kills h2 is %s%n", backend.telemetry().hostProblems().get("h2"));
    assertThat(mariaDbSays.messages(Level.ERROR)).as("MariaDB's own word for it, in this process's log")
        .anyMatch(line -> line.contains("No space left on device") || line.contains("(error 28)"));
    if (!died) {
      Await.until("no statement of the pools runs on h2 past the deadline", Duration.ofSeconds(10),
          () -> longestRunningMs(filling) < DEADLINE.toMillis() * 2);
    }
  }

  /**
   * The operator frees space on h2 and does what brings it back; answers how long that may take.
   * Here the host is restarted, so that its binary log is written again. A MariaDB that died
   * mid-commit may refuse to start, naming transactions prepared in InnoDB that its binary log
   * cannot decide (seen on CI: "Found 2 prepared transactions!"); they are then committed, as the
   * operator would (docs/operations.md, "A full disk"; the restart does it itself), and what must
   * hold holds either way.
   */
  protected Duration freeSpace() throws Exception {
    Files.delete(filler);
    filling.stop();
    filling.restart();
    return Duration.ofSeconds(20);
  }

  /** Reads both copies of every pair {@code written} and says, per answer, how many and which are broken. */
  private void check(List<Written> written, Map<String, Integer> answers, List<String> broken) throws Exception {
    Map<List<Long>, EdgeRow> follows = rows("follows");
    Map<List<Long>, EdgeRow> followedBy = rows("followed_by");
    for (Written write : written) {
      EdgeRow forward = follows.getOrDefault(List.of(write.from().value(), write.to().value()), EdgeRow.ABSENT);
      EdgeRow inverse = followedBy.getOrDefault(List.of(write.to().value(), write.from().value()), EdgeRow.ABSENT);
      String answer = write.answer().succeeded() ? "acknowledged" : answerOf(write.answer().cause());
      answers.merge(answer, 1, Integer::sum);
      boolean alike = !forward.live() && !inverse.live() || forward.sameAs(inverse);
      if (!alike || write.answer().succeeded() && !forward.live()) {
        broken.add(answer + " " + write.from() + " -> " + write.to() + ": " + forward + " / " + inverse);
      }
    }
  }

  private static String answerOf(Throwable failure) {
    if (!(failure instanceof GraphException graph)) {
      return String.valueOf(failure);
    }
    return graph.getMessage().contains("may or may not") ? "maybe" : graph.code().name().toLowerCase();
  }

  /** Fills the tmpfs until {@code left} bytes are free. */
  private void fillAllBut(long left) throws IOException {
    filler = binlogs.resolve("filler");
    long free = Files.getFileStore(binlogs).getUsableSpace();
    try (RandomAccessFile file = new RandomAccessFile(filler.toFile(), "rw")) {
      byte[] block = new byte[64 * 1024];
      long want = Math.max(0, free - left);
      for (long at = 0; at < want; at += block.length) {
        file.write(block, 0, (int) Math.min(block.length, want - at));
      }
    }
  }

  /** Every row of an edge type on both hosts, keyed by (from, to): one connection per host. */
  private Map<List<Long>, EdgeRow> rows(String type) throws Exception {
    EdgesTable table = new EdgesTable(TestBackend.get().schema().edgeType(type).orElseThrow());
    Map<List<Long>, EdgeRow> rows = new HashMap<>();
    for (int shard = 0; shard < SHARDS; shard++) {
      try (Connection connection = jdbc(shard < 4 ? healthy : filling); Statement statement = connection.createStatement();
          ResultSet found = statement.executeQuery("SELECT from_id, to_id, sequence, state, data, updated_us FROM "
              + table.on(shard))) {
        while (found.next()) {
          rows.put(List.of(found.getLong(1), found.getLong(2)),
              new EdgeRow(found.getLong(3), found.getInt(4), found.getString(5), found.getLong(6)));
        }
      }
    }
    return rows;
  }

  /** The longest any statement of this test's pools has been running on {@code host}, in ms. */
  protected static long longestRunningMs(EmbeddedMariaDb host) {
    try (Connection connection = jdbc(host); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COALESCE(MAX(TIME_MS), 0) FROM information_schema.PROCESSLIST"
            + " WHERE COMMAND NOT IN ('Sleep', 'Daemon', 'Binlog Dump') AND ID <> CONNECTION_ID()")) {
      rows.next();
      return rows.getLong(1);
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private void awaitOutboxesEmpty() throws Exception {
    Await.until("every outbox drains", Duration.ofSeconds(60), () -> {
      long pending = 0;
      for (int shard = 0; shard < SHARDS; shard++) {
        try (Connection connection = jdbc(shard < 4 ? healthy : filling); Statement statement = connection.createStatement();
            ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM "
                + io.quiver.store.internal.table.OutboxTable.INSTANCE.on(shard))) {
          rows.next();
          pending += rows.getLong(1);
        } catch (Exception e) {
          return false;
        }
      }
      return pending == 0;
    });
  }

  protected static Connection jdbc(EmbeddedMariaDb host) throws Exception {
    TestBackend test = TestBackend.get();
    return DriverManager.getConnection("jdbc:mysql://" + host.address() + "/?connectTimeout=2000&socketTimeout=5000",
        test.hosts().user(), test.hosts().password());
  }

  private static long secondsNanos(int seconds) {
    return Duration.ofSeconds(seconds).toNanos();
  }
}
