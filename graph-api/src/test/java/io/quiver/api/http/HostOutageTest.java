package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.NodeId;
import io.quiver.store.PoolSettings;
import io.quiver.store.testing.GraphInvariants;
import java.time.Duration;
import java.util.function.Supplier;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/**
 * One host of two goes down, or hangs: its shards answer 503 fast, naming it, the other host's
 * keep serving, and it is served again when it is back.
 *
 * <p>A host that hangs instead of failing — its MariaDB process stopped with SIGSTOP, so
 * connects and open connections stay up and nothing is answered — is the harder case: the write
 * it caught is answered within the statement timeout and never commits later, its shards answer
 * 503 at once once its probe has marked it down, and health answers within a second.
 */
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
    return api.userOn(host, "before");
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
      // The probe's verdict comes at its next tick, a quarter of downAfter at most after the stop.
      Await.until("the probe finds h2 down", Duration.ofSeconds(2),
          () -> "down".equals(api.call(GET, "/health").body().get("hosts").get("h2").asText()));
      Answer health = api.call(GET, "/health");
      assertThat(health.status()).isEqualTo(503);
      assertThat(health.body().get("hosts").get("h2").asText()).isEqualTo("down");
      assertThat(health.body().get("hosts").get("h1").asText()).isEqualTo("up");
    } finally {
      api.backend.hosts().start(1);
    }

    Await.until("served again once the host is back", Duration.ofSeconds(20),
        () -> api.call(GET, "/v1/nodes/" + onH2).status() == 200);
  }

  private record Timed(Answer answer, Duration took) {}

  private static Timed timed(Supplier<Answer> call) {
    long started = System.nanoTime();
    Answer answer = call.get();
    return new Timed(answer, Duration.ofNanos(System.nanoTime() - started));
  }

  @Test
  void aFrozenHost_isNamedAt503WithinItsTimeouts_healthAnswersInASecond_andTheWriteItCaughtNeverCommits()
      throws Exception {
    String onH1 = userOn("h1");
    String onH2 = userOn("h2");
    Duration statementTimeout = PoolSettings.DEFAULT_STATEMENT_TIMEOUT;

    api.backend.hosts().freeze(1);
    try {
      Timed caught = timed(() -> api.call(PATCH, "/v1/nodes/" + onH2, "{\"data\": {\"name\": \"caught\"}}"));
      assertThat(caught.answer().status()).as(caught.answer().text()).isEqualTo(503);
      assertThat(caught.answer().text()).contains("h2").contains("nothing was written");
      assertThat(caught.took()).isLessThan(statementTimeout.plusSeconds(1));

      // The write may have been caught waiting for a connection (no handshake comes from a frozen
      // host), answered before the probe's second without an answer has passed: wait for that.
      Await.until("the probe finds h2 down", Duration.ofSeconds(5),
          () -> "down".equals(api.call(GET, "/health").body().get("hosts").get("h2").asText()));
      Timed down = timed(() -> api.call(GET, "/v1/nodes/" + onH2));
      assertThat(down.answer().status()).as(down.answer().text()).isEqualTo(503);
      assertThat(down.answer().text()).contains("host h2").contains("is down");
      assertThat(down.answer().headers().get("Retry-After")).isNotNull();
      assertThat(down.took()).isLessThan(Duration.ofSeconds(1));

      Timed health = timed(() -> api.call(GET, "/health"));
      assertThat(health.took()).isLessThan(Duration.ofSeconds(1));
      assertThat(health.answer().status()).isEqualTo(503);
      assertThat(health.answer().body().get("hosts").get("h2").asText()).isEqualTo("down");
      assertThat(health.answer().body().get("hosts").get("h1").asText()).isEqualTo("up");

      Timed followed = timed(() -> api.call(io.vertx.core.http.HttpMethod.PUT,
          "/v1/nodes/" + onH1 + "/edges/follows/" + onH2 + "?waitForInverse=true", "{}"));
      assertThat(followed.answer().status()).as("a write on h1 whose inverse belongs to the frozen h2")
          .isEqualTo(200);
      assertThat(followed.answer().headers().get("Quiver-Inverse")).isEqualTo("pending");
      assertThat(followed.took()).isLessThan(Duration.ofSeconds(1));

      for (int i = 0; i < 5; i++) {
        Timed served = timed(() -> api.call(GET, "/v1/nodes/" + onH1));
        assertThat(served.answer().status()).isEqualTo(200);
        assertThat(served.took()).isLessThan(Duration.ofSeconds(1));
      }
    } finally {
      api.backend.hosts().thaw(1);
    }

    Await.until("served again once the host answers", Duration.ofSeconds(10),
        () -> api.call(GET, "/v1/nodes/" + onH2).status() == 200);
    // The caught transaction resumes with the host: it must roll back, not commit.
    long watchUntil = System.nanoTime() + Duration.ofSeconds(1).toNanos();
    while (System.nanoTime() < watchUntil) {
      assertThat(api.storedData("user", NodeId.parse(onH2).orElseThrow())).contains("before").doesNotContain("caught");
      Thread.sleep(50);
    }
    assertThat(api.call(GET, "/v1/nodes/" + onH2).body().get("version").asInt()).isEqualTo(1);
  }
}
