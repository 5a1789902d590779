package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.ShardLayout;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.testing.ChangeFollower;
import io.quiver.store.testing.TestBackend;
import java.sql.Connection;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A shard move while the change log, and every inverse, is written from the binary log
 * ({@code changes.source: binlog}): the cut-over waits for the source's tailer between its fence
 * and its last catch-up, so the moving shards' last changes and inverses are written on the
 * source before the copy is complete, and the target's tailer logs from the cut-over on. On a
 * fleet of this test's own (shards 24-31: 24-27 on t1, 28-31 on t2, and t3 empty), whose hosts
 * are named apart from every other test's, so their tail positions are this test's alone.
 */
class TailedShardMoveTest {
  private static final String MAP_PATH = "/quiver-test-tailed-move/shard-map";
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
  private static final TestBackend BACKEND = TestBackend.get();
  private static final int USERS = 64;

  private static ApiFixture first;
  private static ApiFixture second;
  private static final List<String> users = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    List<String> fleet = BACKEND.hosts().addresses();
    Map<String, String> addresses = Map.of("t1", fleet.get(0), "t2", fleet.get(1), "t3", BACKEND.spareHost());
    for (Map.Entry<String, String> host : addresses.entrySet()) {
      try (Connection connection = BACKEND.connect(host.getValue()); Statement statement = connection.createStatement()) {
        for (int shard = 24; shard <= 31; shard++) {
          statement.execute("DROP DATABASE IF EXISTS " + ShardLayout.database(shard));
        }
      }
    }
    ShardMap map = new ShardMap(1,
        Map.of("t1", new Host("t1", addresses.get("t1"), List.of()), "t2", new Host("t2", addresses.get("t2"), List.of()),
            "t3", new Host("t3", addresses.get("t3"), List.of())),
        List.of(new ShardRange(24, 27, "t1"), new ShardRange(28, 31, "t2")),
        List.of(new ShardSpan(24, 31)), Map.of());
    BACKEND.provision(map, BACKEND.schema());
    new ShardMapStore(BACKEND.curator(), MAP_PATH).publish(map);
    ChangeLogSettings tailed = ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG);
    first = ApiFixture.overFleet(MAP_PATH, tailed);
    second = ApiFixture.overFleet(MAP_PATH, tailed);
    users.addAll(MoveUnderLoad.users(first, "tailed mover", USERS));
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
  void twoShardsMovedUnderLoad_keepEveryChangeLoggedOnce_andEveryInverseWritten_waitingForTheSourcesTailer()
      throws Exception {
    Set<Integer> moving = Set.of(28, 29);
    ChangeFollower follower = new ChangeFollower(first.server.backend().changeLog(),
        Set.of(24, 25, 26, 27, 28, 29, 30, 31));
    MoveUnderLoad load = new MoveUnderLoad(first, second, users, moving);
    load.start();
    Thread.sleep(1000);

    Answer moved = first.call(POST, "/v1/admin/shards/move", "{\"shards\": \"28-29\", \"to\": \"t3\"}", ADMIN);
    System.out.println(moved.text());
    Thread.sleep(1000);
    load.stop();

    assertThat(moved.text()).as("the move's progress").contains("\"reached\":\"done\"")
        .contains("the source's change log");
    ShardMap after = new ShardMapStore(BACKEND.curator(), MAP_PATH).read().orElseThrow();
    assertThat(after.rangeOf(28).orElseThrow().host()).isEqualTo("t3");
    assertThat(after.rangeOf(29).orElseThrow().host()).isEqualTo("t3");
    assertThat(after.rangeOf(30).orElseThrow().host()).isEqualTo("t2");
    System.out.printf("tailed shard move under load: %d writes acknowledged, %d refused with 503 on the moving"
        + " shards%n", load.acknowledged.get(), load.refusals.size());
    load.assertEveryAcknowledgedWriteKept(follower);
  }
}
