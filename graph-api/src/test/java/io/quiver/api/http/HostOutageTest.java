package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.testing.GraphInvariants;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** One host of two goes down: its shards answer 503 fast, the other host's keep serving. */
@ExtendWith(GraphInvariants.class)
class HostOutageTest {
  private static ApiFixture api;

  @BeforeAll
  static void start() throws Exception {
    // Uncached, so that every read goes to the host: a cached node would be served while it is down.
    api = new ApiFixture(io.quiver.store.testing.TestBackend.get().poolSettings(), java.time.Duration.ofSeconds(10),
        io.quiver.cache.CacheSettings.defaults().disabled());
  }

  @AfterAll
  static void stop() {
    api.close();
  }

  private static String userOn(String host) {
    for (int i = 0; i < 200; i++) {
      Answer user = api.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"n\"}}");
      if (api.hostOf(user.body().get("shard").asInt()).equals(host)) {
        return user.id();
      }
    }
    throw new AssertionError("no user landed on " + host);
  }

  @Test
  void hostDown_itsShardsAnswer503WithinASecond_theOtherHostKeepsServing_andItRecovers() throws Exception {
    String onH1 = userOn("h1");
    String onH2 = userOn("h2");

    api.backend.hosts().stop(1);
    try {
      long started = System.nanoTime();
      Answer down = api.call(GET, "/v1/nodes/" + onH2);
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(down.status()).as(down.text()).isEqualTo(503);
      assertThat(down.body().get("error").get("code").asText()).isEqualTo("unavailable");
      assertThat(down.headers().get("Retry-After")).isNotNull();
      assertThat(took).isLessThan(Duration.ofSeconds(1));

      Answer colocated = api.call(POST, "/v1/nodes/board",
          "{\"data\": {\"title\": \"t\"}, \"colocateWith\": \"" + onH2 + "\"}");
      assertThat(colocated.status()).isEqualTo(503);

      for (int i = 0; i < 5; i++) {
        assertThat(api.call(GET, "/v1/nodes/" + onH1).status()).isEqualTo(200);
      }
      Answer health = api.call(GET, "/health");
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.body().get("hosts").get("h2").asText()).isEqualTo("down");
      assertThat(health.body().get("hosts").get("h1").asText()).isEqualTo("up");
    } finally {
      api.backend.hosts().start(1);
    }

    long deadline = System.nanoTime() + Duration.ofSeconds(20).toNanos();
    int status;
    do {
      status = api.call(GET, "/v1/nodes/" + onH2).status();
    } while (status != 200 && System.nanoTime() < deadline);
    assertThat(status).as("served again once the host is back").isEqualTo(200);
  }
}
