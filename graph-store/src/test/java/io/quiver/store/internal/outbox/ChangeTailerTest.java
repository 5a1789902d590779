package io.quiver.store.internal.outbox;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.core.testing.Await;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeEvent;
import io.quiver.store.ChangeLog;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.ChangePage;
import io.quiver.store.GraphStore;
import io.quiver.store.Node;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change log written from the binary log ({@link ChangeTailer}) under the failures it is
 * built for: a tail whose connection the host kills, again and again while writes go on, and a
 * position moved under a running tailer as a second tailer of the host would move it.
 */
class ChangeTailerTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static StoreFixture fixture;
  private static GraphStore store;
  private static ChangeLog log;

  @BeforeAll
  static void start() throws Exception {
    fixture = StoreFixture.withChangeLog(ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG));
    store = fixture.store;
    log = fixture.backend.changeLog();
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  @Test
  void tailsKilledWhileWritesGoOn_resumeFromTheirLastBatch_everyChangeLoggedOnce_positionsWithoutGaps()
      throws Exception {
    ChangeCursor before = log.end(Set.of()).await();
    Map<String, Integer> written = new HashMap<>();
    int killed = 0;
    for (int round = 0; round < 4; round++) {
      List<Future<Node>> creates = new ArrayList<>();
      for (int i = 0; i < 40; i++) {
        creates.add(store.createNode("user", json("{\"name\": \"r" + round + "-" + i + "\"}"), null));
      }
      killed += killTails();
      for (Future<Node> created : creates) {
        Node node = created.await();
        written.put(node.id().toString(), 1);
        store.updateNode(node.id(), json("{\"bio\": \"b\"}"), GraphStore.ANY_VERSION).await();
        written.merge(node.id().toString(), 1, Integer::sum);
      }
    }
    assertThat(killed).as("tails were killed under the writes").isGreaterThan(0);

    Await.until("every write's change logged", Duration.ofSeconds(30),
        () -> about(read(before), written.keySet()).size() >= 2 * written.size());
    Thread.sleep(300);
    List<ChangeEvent> events = read(before);
    Map<String, List<String>> changes = new TreeMap<>();
    for (ChangeEvent event : about(events, written.keySet())) {
      JsonNode body = JSON.readTree(event.body());
      changes.computeIfAbsent(body.path("id").asText(), id -> new ArrayList<>())
          .add(body.path("change").asText() + " v" + body.path("version").asLong());
    }
    assertThat(changes).as("each node's creation and update, once each, in order").hasSize(written.size())
        .allSatisfy((id, logged) -> assertThat(logged).containsExactly("created v1", "updated v2"));
    Map<Integer, List<Long>> positions = new TreeMap<>();
    events.forEach(event -> positions.computeIfAbsent(event.shard(), shard -> new ArrayList<>()).add(event.position()));
    positions.forEach((shard, logged) -> {
      for (int i = 1; i < logged.size(); i++) {
        assertThat(logged.get(i)).as("shard %d's positions follow each other", shard).isEqualTo(logged.get(i - 1) + 1);
      }
    });
  }

  @Test
  void aPositionMovedUnderARunningTailer_stopsItsBatch_andItGoesOnFromThere_loggingEachChangeOnce()
      throws Exception {
    ChangeCursor start = log.end(Set.of()).await();
    Node first = store.createNode("user", json("{\"name\": \"before\"}"), null).await();
    Await.until("the first node logged", Duration.ofSeconds(10),
        () -> !about(read(start), Set.of(first.id().toString())).isEmpty());
    ChangeCursor before = log.end(Set.of()).await();
    Host host = TestBackend.get().shardMap().hosts().get(TestBackend.get().shardMap().rangeOf(first.id().shard())
        .orElseThrow().host());
    // As a second tailer would: the host's position moved to where its log is now.
    try (Connection connection = TestBackend.get().connect(host.primary());
        PreparedStatement moved = connection.prepareStatement(
            "UPDATE quiver_tail.positions SET gtid_pos = @@GLOBAL.gtid_binlog_pos WHERE host = ?")) {
      moved.setString(1, host.name());
      assertThat(moved.executeUpdate()).isEqualTo(1);
    }
    List<Node> after = new ArrayList<>();
    for (int i = 0; i < 10; i++) {
      after.add(store.createNode("user", json("{\"name\": \"after" + i + "\"}"), null).await());
    }
    Set<String> ids = new java.util.HashSet<>();
    after.forEach(node -> ids.add(node.id().toString()));

    Await.until("the writes after the move logged", Duration.ofSeconds(20),
        () -> about(read(before), ids).size() >= ids.size());
    Thread.sleep(300);
    assertThat(about(read(before), ids)).as("each once").hasSize(ids.size());
  }

  @Test
  void theLogsLag_isNoneOnceTheTailerHasLoggedWhatItRead_andGrowsWhileItsTailIsDown() throws Exception {
    Await.until("every host's tailer caught up", Duration.ofSeconds(10), () -> lags().values().stream()
        .allMatch(lag -> lag == 0));
    assertThat(lags()).containsOnlyKeys("h1", "h2").allSatisfy((host, lag) -> assertThat(lag).isZero());

    assertThat(killTails()).as("dump connections killed").isPositive();
    Await.until("a tail seen down", Duration.ofSeconds(2), () -> lags().values().stream().anyMatch(lag -> lag > 0));
    long down = longest();
    Await.until("the lag growing while the tail is down", Duration.ofSeconds(2), () -> longest() > down);
    assertThat(longest()).as("growing while the tail is down").isGreaterThan(down);

    Await.until("the tails back and caught up", Duration.ofSeconds(10), () -> lags().values().stream()
        .allMatch(lag -> lag == 0));
    assertThat(lags().values()).allSatisfy(lag -> assertThat(lag).isZero());
  }

  private static long longest() {
    return lags().values().stream().mapToLong(Long::longValue).max().orElseThrow();
  }

  /** Each host's change-log lag, as the store's telemetry reports it. */
  private static Map<String, Long> lags() {
    Map<String, Long> lags = new TreeMap<>();
    fixture.backend.telemetry().outboxStats().await().forEach((host, stats) -> lags.put(host, stats.changeLogLagMillis()));
    return lags;
  }

  /** Kills every binary-log dump connection on the test backend's hosts; answers how many. */
  private static int killTails() throws Exception {
    int killed = 0;
    for (Host host : TestBackend.get().shardMap().hosts().values()) {
      try (Connection connection = TestBackend.get().connect(host.primary());
          Statement sql = connection.createStatement();
          ResultSet dumps = sql.executeQuery(
              "SELECT ID FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'")) {
        List<Long> ids = new ArrayList<>();
        while (dumps.next()) {
          ids.add(dumps.getLong(1));
        }
        for (long id : ids) {
          try (Statement kill = connection.createStatement()) {
            kill.execute("KILL " + id);
            killed++;
          } catch (java.sql.SQLException gone) {
            // ended by itself meanwhile
          }
        }
      }
    }
    return killed;
  }

  private static List<ChangeEvent> read(ChangeCursor from) {
    List<ChangeEvent> events = new ArrayList<>();
    ChangeCursor cursor = from;
    while (true) {
      ChangePage page = log.read(cursor, Set.of(), Set.of(), ChangeLog.MAX_LIMIT).await();
      events.addAll(page.events());
      cursor = page.cursor();
      if (page.events().isEmpty()) {
        return events;
      }
    }
  }

  private static List<ChangeEvent> about(List<ChangeEvent> events, Set<String> ids) {
    List<ChangeEvent> found = new ArrayList<>();
    for (ChangeEvent event : events) {
      try {
        if (ids.contains(JSON.readTree(event.body()).path("id").asText())) {
          found.add(event);
        }
      } catch (Exception e) {
        throw new AssertionError(event.body(), e);
      }
    }
    return found;
  }
}
