package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.testing.ChangeFollower;
import io.quiver.store.testing.TestBackend;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Predicate;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * Shards moved between real MariaDB hosts while servers serve them: on a fleet of this test's own
 * (shards 16-23: 16-19 on h1, 20-23 on h2, and the spare host h3 empty), with two servers, so the
 * cut-over's fence spans more than one. Ordered: each move starts from the map the previous left.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardMoveTest {
  private static final String MAP_PATH = "/quiver-test-move/shard-map";
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TestBackend BACKEND = TestBackend.get();
  private static final int USERS = 64;

  private static Map<String, String> addresses;
  private static ApiFixture first;
  private static ApiFixture second;
  private static final List<String> users = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    String spare = BACKEND.spareHost();
    List<String> fleet = BACKEND.hosts().addresses();
    addresses = Map.of("h1", fleet.get(0), "h2", fleet.get(1), "h3", spare);
    ShardMap map = new ShardMap(1,
        Map.of("h1", new Host("h1", fleet.get(0), List.of()), "h2", new Host("h2", fleet.get(1), List.of()),
            "h3", new Host("h3", spare, List.of())),
        List.of(new ShardRange(16, 19, "h1"), new ShardRange(20, 23, "h2")),
        List.of(new ShardSpan(16, 23)), Map.of());
    for (String database : List.of("db00016", "db00017", "db00018", "db00019", "db00020", "db00021", "db00022",
        "db00023")) {
      for (String host : List.of("h1", "h2", "h3")) {
        sql(host, "DROP DATABASE IF EXISTS " + database);
      }
    }
    BACKEND.provision(map, BACKEND.schema());
    new ShardMapStore(BACKEND.curator(), MAP_PATH).publish(map);
    first = ApiFixture.overFleet(MAP_PATH);
    second = ApiFixture.overFleet(MAP_PATH);
    users.addAll(MoveUnderLoad.users(first, "mover", USERS));
  }

  @AfterAll
  static void stop() {
    if (first != null) {
      first.close();
    }
    if (second != null) {
      second.close();
    }
  }

  @Test
  @Order(1)
  void twoShardsMovedUnderLoad_keepEveryAcknowledgedWrite_andRefuseWritesOnlyBriefly() throws Exception {
    Set<Integer> moving = Set.of(20, 21);
    ChangeFollower follower = new ChangeFollower(first.server.backend().changeLog(),
        Set.of(16, 17, 18, 19, 20, 21, 22, 23));
    MoveUnderLoad load = new MoveUnderLoad(first, second, users, moving);
    load.start();
    Thread.sleep(1000);

    Answer moved = first.call(POST, "/v1/admin/shards/move", "{\"shards\": \"20-21\", \"to\": \"h3\"}", ADMIN);
    System.out.println(moved.text());
    Thread.sleep(1000);
    load.stop();

    JsonNode summary = lastLine(moved.text());
    assertThat(summary.has("summary")).as(moved.text()).isTrue();
    assertThat(summary.at("/summary/reached").asText()).isEqualTo("done");
    assertThat(summary.at("/summary/chunksCompared").asLong()).as("chunks whose checksums matched").isPositive();
    ShardMap after = new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow();
    assertThat(after.rangeOf(20).orElseThrow().host()).isEqualTo("h3");
    assertThat(after.rangeOf(21).orElseThrow().host()).isEqualTo("h3");
    assertThat(after.rangeOf(22).orElseThrow().host()).isEqualTo("h2");
    assertThat(after.stateOf(20).writable()).isTrue();
    assertThat(databases("h2")).doesNotContain("db00020", "db00021").anyMatch(name -> name.endsWith("_db00020"));
    assertThat(databases("h3")).contains("db00020", "db00021");

    long window = load.longestRefusal();
    long refusedByTheMove = summary.at("/summary/writesRefusedMillis").asLong();
    System.out.printf("shard move under load: %d writes acknowledged, %d refused with 503 on the moving shards;"
            + " the longest window of refused writes was %d ms as the clients saw it, %d ms from the read-only map to"
            + " the flipped one; %d requests to unmoved shards failed%n",
        load.acknowledged.get(), load.refusals.size(), window, refusedByTheMove, load.unmovedFailures.size());
    assertThat(window).as("longest window of refused writes, ms").isLessThan(2000);
    assertThat(refusedByTheMove).as("the move's own measure of it, ms").isLessThan(2000);
    load.assertEveryAcknowledgedWriteKept(follower);
  }

  @Test
  @Order(2)
  void aMoveWhoseServerDiesDuringTheCopy_isCompletedByARerunOnAnotherServer() throws Exception {
    fill("h2", "db00022", 60_000);
    ApiFixture doomed = ApiFixture.overFleet(MAP_PATH);
    Stream move = new Stream(doomed.port(), "{\"shards\": \"22-23\", \"to\": \"h3\"}");
    move.await(line -> "copy".equals(line.path("phase").asText()) && line.path("done").asLong() > 0);
    doomed.close();
    move.finished.get(30, TimeUnit.SECONDS);
    Await.until("the dead server's lease is gone", Duration.ofSeconds(20),
        () -> second.call(GET, "/v1/admin/shards/move", null, ADMIN).body().at("/move/runner").isNull());
    assertThat(second.call(GET, "/v1/admin/shards/move", null, ADMIN).body().at("/move/phase").asText())
        .isEqualTo("copy");

    Answer rerun = second.call(POST, "/v1/admin/shards/move", "{\"shards\": \"22-23\", \"to\": \"h3\"}", ADMIN);
    JsonNode summary = lastLine(rerun.text());
    assertThat(summary.at("/summary/reached").asText()).as(rerun.text()).isEqualTo("done");
    assertThat(summary.at("/summary/rowsCopied").asLong()).isGreaterThanOrEqualTo(60_000);
    assertThat(new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow().rangeOf(22).orElseThrow().host())
        .isEqualTo("h3");
    assertThat(count("h3", "db00022", "filler")).isEqualTo(60_000);
    assertThat(second.call(GET, "/v1/admin/shards/move", null, ADMIN).body().get("move").isNull()).isTrue();
  }

  @Test
  @Order(3)
  void aMoveCancelledDuringItsCopy_leavesTheMapAndTheDataAsTheyWere() throws Exception {
    fill("h1", "db00016", 60_000);
    ShardMap before = new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow();
    String checksumBefore = checksum("h1", "db00016");

    Stream move = new Stream(first.port(), "{\"shards\": \"16-17\", \"to\": \"h3\"}");
    move.await(line -> "copy".equals(line.path("phase").asText()) && line.path("done").asLong() > 0);
    Answer cancelled = second.call(POST, "/v1/admin/shards/move/cancel", null, ADMIN);
    assertThat(cancelled.status()).as(cancelled.text()).isEqualTo(200);
    assertThat(cancelled.body().at("/cancelled/shards").asText()).isEqualTo("16-17");
    move.finished.get(30, TimeUnit.SECONDS);
    assertThat(move.lines.get(move.lines.size() - 1).path("error").asText()).contains("cancelled");

    assertThat(new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow()).isEqualTo(before);
    assertThat(databases("h3")).doesNotContain("db00016", "db00017");
    assertThat(checksum("h1", "db00016")).isEqualTo(checksumBefore);
    assertThat(second.call(GET, "/v1/admin/shards/move", null, ADMIN).body().get("move").isNull()).isTrue();
    assertThat(first.call(GET, "/v1/admin/status", null, ADMIN).status()).isEqualTo(200);
  }

  @Test
  @Order(4)
  void aRowChangedOnTheTargetBehindTheMovesBack_stopsTheMoveBeforeItsCutOver() throws Exception {
    fill("h1", "db00018", 5_000);
    ShardMap before = new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow();
    Answer copied = first.call(POST, "/v1/admin/shards/move",
        "{\"shards\": \"18-19\", \"to\": \"h3\", \"stopBefore\": \"verify\"}", ADMIN);
    assertThat(lastLine(copied.text()).at("/summary/reached").asText()).as(copied.text()).isEqualTo("verify");

    sql("h3", "SET SESSION sql_log_bin = 0; UPDATE db00018.filler SET payload = 'changed behind the move' WHERE id = 2500");
    Answer verified = first.call(POST, "/v1/admin/shards/move", "{\"shards\": \"18-19\", \"to\": \"h3\"}", ADMIN);
    JsonNode last = lastLine(verified.text());
    assertThat(last.path("error").asText()).as(verified.text())
        .contains("differs").contains("`db00018`.`filler` keys [2000, 3000)");
    assertThat(new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow()).as("the map, untouched")
        .isEqualTo(before);

    assertThat(second.call(POST, "/v1/admin/shards/move/cancel", null, ADMIN).status()).isEqualTo(200);
    assertThat(databases("h3")).doesNotContain("db00018");
  }

  @Test
  @Order(5)
  void theCommandLine_movesShardsWithProgress_showsAndCancelsAMove_andDropsRetiredCopies() throws Exception {
    String server = "http://127.0.0.1:" + first.port();
    io.quiver.api.cli.Cli.Run stopped = io.quiver.api.cli.Cli.quiver("shards", "move", "18-19", "--to", "h3",
        "--stop-before", "cut-over", "--server", server, "--token", TestBackend.ADMIN_TOKEN);
    assertThat(stopped.status()).as(stopped.err()).isZero();
    assertThat(stopped.out()).contains("copy: ", "catch-up: h3 caught up", "verify: ", "chunks equal on both hosts",
        "shards 18-19 stopped before cut-over, replicating from h1 to h3");
    io.quiver.api.cli.Cli.Run status = io.quiver.api.cli.Cli.quiver("shards", "move", "--status", "--server", server,
        "--token", TestBackend.ADMIN_TOKEN);
    assertThat(status.out()).contains("moving shards 18-19 from h1 to h3, at cut-over; no server runs it now");

    io.quiver.api.cli.Cli.Run other = io.quiver.api.cli.Cli.quiver("shards", "move", "16-17", "--to", "h3",
        "--server", server, "--token", TestBackend.ADMIN_TOKEN);
    assertThat(other.status()).isEqualTo(1);
    assertThat(other.err()).contains("a move of shards 18-19 to h3 is under way (cut-over)");

    io.quiver.api.cli.Cli.Run moved = io.quiver.api.cli.Cli.quiver("shards", "move", "18-19", "--to", "h3",
        "--server", server, "--token", TestBackend.ADMIN_TOKEN);
    assertThat(moved.status()).as(moved.err()).isZero();
    assertThat(moved.out()).contains("cut-over: every server routes shards 18-19 to h3",
        "moved shards 18-19 from h1 to h3", "the old copy is kept as h1:retired_");
    assertThat(new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow().rangeOf(19).orElseThrow().host())
        .isEqualTo("h3");

    io.quiver.api.cli.Cli.Run kept = io.quiver.api.cli.Cli.quiver("shards", "drop-retired", "--server", server,
        "--token", TestBackend.ADMIN_TOKEN);
    assertThat(kept.out()).contains("no retired copy is older than 24 h");
    io.quiver.api.cli.Cli.Run dropped = io.quiver.api.cli.Cli.quiver("shards", "drop-retired", "--grace-hours", "0",
        "--server", server, "--token", TestBackend.ADMIN_TOKEN);
    assertThat(dropped.out()).contains("dropped h1:retired_", "_db00018", "dropped h2:retired_", "_db00020");
    assertThat(databases("h1")).noneMatch(name -> name.startsWith("retired_"));
  }

  @Test
  @Order(6)
  void aRunnerWhoseLeaseIsTakenFromIt_stopsTheCopy_andLeavesTheMoveToTheNewHolder() throws Exception {
    String lease = MAP_PATH + "-move-runner";
    Stream move = new Stream(first.port(), "{\"shards\": \"16-17\", \"to\": \"h3\"}");
    move.await(line -> "copy".equals(line.path("phase").asText()) && line.path("done").asLong() > 0);
    // As when the runner's session ended while it was cut off, and another server took the move over.
    BACKEND.curator().delete().forPath(lease);
    BACKEND.curator().create().withMode(org.apache.zookeeper.CreateMode.EPHEMERAL)
        .forPath(lease, "another-server".getBytes(java.nio.charset.StandardCharsets.UTF_8));

    move.finished.get(30, TimeUnit.SECONDS);
    assertThat(move.lines.get(move.lines.size() - 1).path("error").asText())
        .as("stopped between batches, or at the next phase if the copy had finished").containsPattern("stopped|lease");
    assertThat(new String(BACKEND.curator().getData().forPath(lease), java.nio.charset.StandardCharsets.UTF_8))
        .as("the old runner never lets go of a lease it no longer holds").isEqualTo("another-server");
    assertThat(second.call(GET, "/v1/admin/shards/move", null, ADMIN).body().at("/move/phase").asText())
        .as("not undone: the move is the new holder's").isEqualTo("copy");

    BACKEND.curator().delete().forPath(lease);
    Answer rerun = second.call(POST, "/v1/admin/shards/move", "{\"shards\": \"16-17\", \"to\": \"h3\"}", ADMIN);
    assertThat(lastLine(rerun.text()).at("/summary/reached").asText()).as(rerun.text()).isEqualTo("done");
    assertThat(count("h3", "db00016", "filler")).isEqualTo(60_000);
  }

  @Test
  @Order(7)
  void aCutOverThatAServerDoesNotAcknowledge_backsOff_leavingTheShardsWritableOnTheSource() throws Exception {
    ShardMap before = new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow();
    // A server that has not taken in the read-only map (cut off from ZooKeeper, but its session alive).
    try (io.quiver.core.zk.ServedVersions laggard = new io.quiver.core.zk.ServedVersions(BACKEND.curator(),
        MAP_PATH + "-served", "laggard", before.version())) {
      Answer backedOff = first.call(POST, "/v1/admin/shards/move", "{\"shards\": \"16-17\", \"to\": \"h1\"}", ADMIN);
      assertThat(lastLine(backedOff.text()).path("error").asText()).as(backedOff.text())
          .contains("the cut-over backed off", "laggard@" + before.version());
      ShardMap after = new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow();
      assertThat(after.rangeOf(16).orElseThrow().host()).isEqualTo("h3");
      assertThat(after.stateOf(16).writable()).as("read-write again").isTrue();
      assertThat(first.call(PATCH, "/v1/nodes/" + someUserOn(16, 17).orElse(users.get(0)), "{\"data\": {\"bio\": \"after\"}}")
          .status()).isEqualTo(200);
      assertThat(second.call(GET, "/v1/admin/shards/move", null, ADMIN).body().at("/move/phase").asText())
          .isEqualTo("catch-up");
    }
    Answer rerun = second.call(POST, "/v1/admin/shards/move", "{\"shards\": \"16-17\", \"to\": \"h1\"}", ADMIN);
    assertThat(lastLine(rerun.text()).at("/summary/reached").asText()).as(rerun.text()).isEqualTo("done");
    assertThat(new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow().rangeOf(16).orElseThrow().host())
        .isEqualTo("h1");
  }

  private static java.util.Optional<String> someUserOn(int... shards) {
    return users.stream().filter(user -> java.util.Arrays.stream(shards)
        .anyMatch(shard -> NodeId.parse(user).orElseThrow().shard() == shard)).findFirst();
  }


  /** A move through the admin API read line by line as the server streams it. */
  private static final class Stream {
    final List<JsonNode> lines = new java.util.concurrent.CopyOnWriteArrayList<>();
    final CompletableFuture<Void> finished;

    Stream(int port, String body) {
      HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/admin/shards/move"))
          .header("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN)
          .POST(HttpRequest.BodyPublishers.ofString(body)).build();
      finished = HttpClient.newHttpClient().sendAsync(request, HttpResponse.BodyHandlers.ofLines())
          .thenAccept(response -> response.body().forEach(line -> {
            System.out.println("move: " + line);
            try {
              lines.add(JSON.readTree(line));
            } catch (Exception notJson) {
              lines.add(JSON.createObjectNode().put("error", line));
            }
          }))
          .exceptionally(cut -> null);
    }

    void await(Predicate<JsonNode> wanted) throws InterruptedException {
      Await.until("a progress line", Duration.ofSeconds(60), () -> lines.stream().anyMatch(wanted)
          || finished.isDone());
      assertThat(lines.stream().anyMatch(wanted)).as("progress: " + lines).isTrue();
    }
  }

  private static JsonNode lastLine(String ndjson) throws Exception {
    List<String> lines = ndjson.lines().filter(line -> !line.isBlank()).toList();
    return JSON.readTree(lines.get(lines.size() - 1));
  }

  /** A table of {@code rows} rows in a shard database (copied and verified like any other). */
  private static void fill(String host, String database, int rows) throws Exception {
    sql(host, "CREATE TABLE IF NOT EXISTS " + database + ".filler (id BIGINT PRIMARY KEY, payload VARCHAR(200))");
    sql(host, "INSERT IGNORE INTO " + database + ".filler SELECT seq, REPEAT('x', 150) FROM " + database
        + ".seq_1_to_" + rows);
  }

  private static long count(String host, String database, String table) throws Exception {
    try (Connection connection = connect(host); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + database + "." + table)) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** {@code CHECKSUM TABLE} of every table of a database, in order. */
  private static String checksum(String host, String database) throws Exception {
    StringBuilder sums = new StringBuilder();
    try (Connection connection = connect(host); Statement statement = connection.createStatement()) {
      List<String> tables = new ArrayList<>();
      try (ResultSet rows = statement.executeQuery("SELECT table_name FROM information_schema.tables WHERE table_schema = '"
          + database + "' ORDER BY table_name")) {
        while (rows.next()) {
          tables.add(rows.getString(1));
        }
      }
      for (String table : tables) {
        try (ResultSet rows = statement.executeQuery("CHECKSUM TABLE " + database + "." + table)) {
          rows.next();
          sums.append(table).append('=').append(rows.getLong(2)).append(' ');
        }
      }
    }
    return sums.toString();
  }

  private static List<String> databases(String host) throws Exception {
    List<String> names = new ArrayList<>();
    try (Connection connection = connect(host); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW DATABASES")) {
      while (rows.next()) {
        names.add(rows.getString(1));
      }
    }
    return names;
  }

  private static void sql(String host, String statements) throws Exception {
    try (Connection connection = connect(host); Statement statement = connection.createStatement()) {
      for (String one : statements.split(";")) {
        statement.execute(one.trim());
      }
    }
  }

  private static Connection connect(String host) throws Exception {
    return DriverManager.getConnection("jdbc:mysql://" + addresses.get(host) + "/", BACKEND.hosts().user(),
        BACKEND.hosts().password());
  }
}
