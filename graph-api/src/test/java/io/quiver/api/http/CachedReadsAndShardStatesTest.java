package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One rule per state for what a server's cache answers (docs/operations.md, "Shard states"): an
 * operator's {@code offline} means nothing answers, cached reads included; {@code read-only}
 * answers cached reads and refuses writes; a host that is down (frozen here) keeps answering what
 * is cached, as TAO's cache does through a database outage, and refuses only misses. On a shard
 * map of this test's own, so that the shared one stays as the other tests expect it.
 */
class CachedReadsAndShardStatesTest {
  private static final String MAP_PATH = "/quiver-test-states/shard-map";
  private static final Map<String, String> ADMIN = Map.of("Authorization", "Bearer " + TestBackend.ADMIN_TOKEN);
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    TestBackend backend = TestBackend.get();
    new ShardMapStore(backend.curator(), MAP_PATH).publish(TestBackend.twoHostMap(backend.hosts().addresses()));
    api = ApiFixture.overShardMap(MAP_PATH);
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  private static String userOn(String host) {
    return api.userOn(host, "cached");
  }

  private static void setState(int shard, String state) throws InterruptedException {
    Answer set = api.call(POST, "/v1/admin/shards/state",
        "{\"shards\": \"" + shard + "\", \"state\": \"" + state + "\"}", ADMIN);
    assertThat(set.status()).as(set.text()).isEqualTo(200);
    long version = set.body().get("version").asLong();
    Await.until("the server follows map version " + version, Duration.ofSeconds(10),
        () -> api.server.backend().shardMap().version() >= version);
  }

  @Test
  void anOfflineShard_answersNothing_notEvenCachedReads_whileReadOnlyAnswersThemAndRefusesWrites() throws Exception {
    String user = userOn("h1");
    int shard = api.call(GET, "/v1/nodes/" + user).body().get("shard").asInt();
    assertThat(api.call(GET, "/v1/nodes/" + user + "/edges/follows").status()).isEqualTo(200);
    try {
      setState(shard, "offline");
      for (String read : new String[] {"/v1/nodes/" + user, "/v1/nodes/" + user + "/edges/follows",
          "/v1/nodes/" + user + "/edges/follows/count", "/v1/nodes?ids=" + user}) {
        Answer refused = api.call(GET, read);
        assertThat(refused.status()).as(read + ": " + refused.text()).isEqualTo(503);
        assertThat(refused.text()).contains("offline");
      }

      setState(shard, "read-only");
      assertThat(api.call(GET, "/v1/nodes/" + user).status()).isEqualTo(200);
      Answer write = api.call(PATCH, "/v1/nodes/" + user, "{\"data\": {\"name\": \"no\"}}");
      assertThat(write.status()).as(write.text()).isEqualTo(503);
      assertThat(write.text()).contains("read-only");
    } finally {
      setState(shard, "read-write");
    }
    assertThat(api.call(GET, "/v1/nodes/" + user).status()).isEqualTo(200);
  }

  @Test
  void aHostThatIsDown_keepsAnsweringWhatIsCached_andRefusesOnlyMisses() throws Exception {
    String cached = userOn("h2");
    assertThat(api.call(GET, "/v1/nodes/" + cached).status()).isEqualTo(200);
    assertThat(api.call(GET, "/v1/nodes/" + cached + "/edges/follows").status()).isEqualTo(200);

    api.backend.hosts().freeze(1);
    try {
      Await.until("the probe declares h2 down", Duration.ofSeconds(5),
          () -> api.call(GET, "/health").status() == 503);
      Answer hit = api.call(GET, "/v1/nodes/" + cached);
      assertThat(hit.status()).as(hit.text()).isEqualTo(200);
      assertThat(api.call(GET, "/v1/nodes/" + cached + "/edges/follows").status()).as("a cached list").isEqualTo(200);
      Answer miss = api.call(GET, "/v1/nodes/" + cached + "/edges/followed_by");
      assertThat(miss.status()).as(miss.text()).isEqualTo(503);
      assertThat(miss.text()).contains("host h2").contains("is down");
    } finally {
      api.backend.hosts().thaw(1);
    }
    Await.until("h2 answers again", Duration.ofSeconds(10), () -> api.call(GET, "/health").status() == 200);
  }
}
