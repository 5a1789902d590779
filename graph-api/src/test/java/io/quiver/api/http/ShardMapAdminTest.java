package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.testing.TestBackend;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * The shard map administered through the admin API — add a host, open shards on it, set shards'
 * state — against a real third MariaDB host, on a map of this test's own (the shared one stays as
 * the other tests expect it). Ordered: each step builds on the map the previous one published.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ShardMapAdminTest {
  private static final String MAP_PATH = "/quiver-test-fleet/shard-map";
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
  private static final TestBackend BACKEND = TestBackend.get();
  private static String spare;
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    spare = BACKEND.spareHost();
    new ShardMapStore(BACKEND.curator(), MAP_PATH).publish(TestBackend.twoHostMap(BACKEND.hosts().addresses()));
    api = ApiFixture.overShardMap(MAP_PATH);
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  private static Answer admin(String path, String body) {
    return api.call(POST, path, body, ADMIN);
  }

  private static Answer admin(String path, String body, long ifMatch) {
    Map<String, String> headers = new HashMap<>(ADMIN);
    headers.put("If-Match", "\"" + ifMatch + "\"");
    return api.call(POST, path, body, headers);
  }

  private static JsonNode storedMap() {
    return api.call(GET, "/v1/admin/shard-map", null, ADMIN).body();
  }

  @Test
  @Order(1)
  void addHost_checksTheHostIsReachable_andPublishesTheMapOneVersionUp() {
    long before = storedMap().get("version").asLong();

    Answer added = admin("/v1/admin/hosts", "{\"name\": \"h3\", \"primary\": \"" + spare + "\"}", before);

    assertThat(added.status()).as(added.text()).isEqualTo(200);
    assertThat(added.body().get("version").asLong()).isEqualTo(before + 1);
    assertThat(storedMap().at("/hosts/h3/primary").asText()).isEqualTo(spare);
  }

  @Test
  @Order(2)
  void refusedChanges_sayWhy_andLeaveTheMapAsItWas() {
    JsonNode before = storedMap();
    long version = before.get("version").asLong();

    Answer unreachable = admin("/v1/admin/hosts", "{\"name\": \"h9\", \"primary\": \"127.0.0.1:1\"}");
    assertThat(unreachable.status()).isEqualTo(503);
    assertThat(unreachable.body().at("/error/message").asText()).contains("h9").contains("cannot be reached");

    Answer taken = admin("/v1/admin/hosts", "{\"name\": \"h4\", \"primary\": \"" + spare + "\"}");
    assertThat(taken.status()).isEqualTo(400);
    assertThat(taken.body().at("/error/message").asText()).contains("'h3' already has the primary");

    Answer overlap = admin("/v1/admin/shards", "{\"shards\": \"6-9\", \"host\": \"h3\"}");
    assertThat(overlap.status()).isEqualTo(400);
    assertThat(overlap.body().at("/error/message").asText()).contains("overlap");

    Answer gap = admin("/v1/admin/shards", "{\"shards\": \"10-11\", \"host\": \"h3\"}");
    assertThat(gap.status()).isEqualTo(400);
    assertThat(gap.body().at("/error/message").asText()).contains("gap").contains("start at 8");

    Answer noHost = admin("/v1/admin/shards", "{\"shards\": \"8-9\", \"host\": \"h7\"}");
    assertThat(noHost.status()).isEqualTo(400);
    assertThat(noHost.body().at("/error/message").asText()).contains("h7").contains("add it first");

    Answer badSpan = admin("/v1/admin/shards/state", "{\"shards\": \"5-x\", \"state\": \"read-only\"}");
    assertThat(badSpan.status()).isEqualTo(400);
    Answer badState = admin("/v1/admin/shards/state", "{\"shards\": \"5\", \"state\": \"sleepy\"}");
    assertThat(badState.status()).isEqualTo(400);
    Answer stray = admin("/v1/admin/shards/state", "{\"shards\": \"5\", \"state\": \"offline\", \"why\": 1}");
    assertThat(stray.status()).isEqualTo(400);

    Answer stale = admin("/v1/admin/shards/state", "{\"shards\": \"5\", \"state\": \"read-only\"}", version - 1);
    assertThat(stale.status()).isEqualTo(409);
    assertThat(stale.body().at("/error/code").asText()).isEqualTo("version_conflict");

    Answer anonymous = api.call(POST, "/v1/admin/shards/state", "{\"shards\": \"5\", \"state\": \"offline\"}");
    assertThat(anonymous.status()).isEqualTo(401);

    assertThat(storedMap()).isEqualTo(before);
  }

  @Test
  @Order(3)
  void openShards_provisionsTheirDatabasesBeforePublishing_andNewNodesLandOnThem() throws Exception {
    Answer opened = admin("/v1/admin/shards", "{\"shards\": \"8-9\", \"host\": \"h3\"}");
    assertThat(opened.status()).as(opened.text()).isEqualTo(200);
    assertThat(opened.body().get("ranges").toString()).contains("{\"from\":8,\"to\":9,\"host\":\"h3\"}");
    assertThat(opened.body().get("open").toString()).isEqualTo("[[0,9]]");
    assertThat(tablesOnSpare("db00008")).isGreaterThan(0);
    assertThat(tablesOnSpare("db00009")).isEqualTo(tablesOnSpare("db00008"));

    // With shards 0-7 read-only, every new node must land on the new host's shards.
    Answer readOnly = admin("/v1/admin/shards/state", "{\"shards\": \"0-7\", \"state\": \"read-only\"}");
    assertThat(readOnly.status()).as(readOnly.text()).isEqualTo(200);
    assertThat(readOnly.body().get("state").size()).isEqualTo(8);
    try {
      for (int i = 0; i < 5; i++) {
        Answer created = api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"on h3\"}}");
        assertThat(created.status()).as(created.text()).isEqualTo(201);
        int shard = NodeId.parse(created.id()).orElseThrow().shard();
        assertThat(shard).isBetween(8, 9);
        assertThat(api.call(GET, "/v1/nodes/" + created.id()).body().at("/data/name").asText()).isEqualTo("on h3");
      }
    } finally {
      Answer back = admin("/v1/admin/shards/state", "{\"shards\": \"0-7\", \"state\": \"read-write\"}");
      assertThat(back.status()).as(back.text()).isEqualTo(200);
      assertThat(back.body().get("state").size()).isZero();
    }
  }

  @Test
  @Order(4)
  void openShards_closedToNewNodes_leavesTheOpenSpansAlone_andAdjoiningRangesMerge() {
    Answer opened = admin("/v1/admin/shards", "{\"shards\": \"10\", \"host\": \"h3\", \"acceptNewNodes\": false}");

    assertThat(opened.status()).as(opened.text()).isEqualTo(200);
    assertThat(opened.body().get("ranges").toString()).contains("{\"from\":8,\"to\":10,\"host\":\"h3\"}");
    assertThat(opened.body().get("open").toString()).isEqualTo("[[0,9]]");
  }

  @Test
  @Order(5)
  void aHostHoldingNoShardsThatIsDown_blocksNoOtherChange() throws Exception {
    ShardMapStore store = new ShardMapStore(BACKEND.curator(), MAP_PATH);
    ShardMap stored = store.read().orElseThrow();
    store.publish(stored.withHost(new Host("h9", "127.0.0.1:1", List.of()))
        .withVersion(stored.version() + 1));

    Answer changed = admin("/v1/admin/shards/state", "{\"shards\": \"5\", \"state\": \"read-only\"}", stored.version() + 1);
    assertThat(changed.status()).as(changed.text()).isEqualTo(200);
    Answer back = admin("/v1/admin/shards/state", "{\"shards\": \"5\", \"state\": \"read-write\"}");
    assertThat(back.status()).as(back.text()).isEqualTo(200);
  }

  private static long tablesOnSpare(String database) throws Exception {
    try (Connection connection = DriverManager.getConnection("jdbc:mysql://" + spare + "/",
            BACKEND.hosts().user(), BACKEND.hosts().password());
        PreparedStatement count = connection.prepareStatement(
            "SELECT COUNT(*) FROM information_schema.tables WHERE table_schema = ?")) {
      count.setString(1, database);
      try (ResultSet rows = count.executeQuery()) {
        rows.next();
        return rows.getLong(1);
      }
    }
  }
}
