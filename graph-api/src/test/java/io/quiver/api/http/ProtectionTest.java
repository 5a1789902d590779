package io.quiver.api.http;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.ApiFixture;
import io.quiver.store.PoolSettings;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** Overload fails fast and clearly instead of queueing without bound or hanging. */
@ExtendWith(GraphInvariants.class)
class ProtectionTest {

  @Test
  void aFullPoolQueue_answers503AtOnce_andTheRestAreServed() throws Exception {
    TestBackend backend = TestBackend.get();
    PoolSettings tiny = new PoolSettings(backend.hosts().user(), backend.hosts().password(), 1, 1,
        Duration.ofMillis(500), Duration.ofSeconds(5), 64, 1);
    // Uncached: with the cache, all sixty reads would be served from one edge window loaded once.
    try (ApiFixture api = new ApiFixture(tiny, Duration.ofSeconds(10), io.quiver.cache.CacheSettings.defaults().disabled())) {
      Answer created = api.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"p\"}}");
      assertThat(created.status()).as(created.text()).isEqualTo(201);
      String board = created.id();
      List<Future<Answer>> burst = new ArrayList<>();
      long started = System.nanoTime();
      for (int i = 0; i < 60; i++) {
        burst.add(api.client().callAsync(GET, "/v1/nodes/" + board + "/edges/board_has_pins", null));
      }
      Future.join(burst).otherwiseEmpty().await();
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      long refused = burst.stream().filter(answer -> answer.result().status() == 503).count();
      long served = burst.stream().filter(answer -> answer.result().status() == 200).count();
      System.out.printf("burst of 60 on a 1-connection pool with a 1-slot queue: %d served, %d refused in %d ms%n",
          served, refused, took.toMillis());
      assertThat(refused + served).isEqualTo(60);
      assertThat(refused).as("overflow is refused").isPositive();
      assertThat(served).as("what fits is served").isPositive();
      burst.stream().map(Future::result).filter(answer -> answer.status() == 503).forEach(answer -> {
        assertThat(answer.body().get("error").get("code").asText()).isEqualTo("unavailable");
        assertThat(answer.headers().get("Retry-After")).isNotNull();
      });
    }
  }

  @Test
  void aClientTooSlowToSendItsRequest_gets503WithTheErrorBody_andNothingIsWritten() throws Exception {
    try (ApiFixture api = new ApiFixture(TestBackend.get().poolSettings(), Duration.ofMillis(300));
        java.net.Socket socket = new java.net.Socket("127.0.0.1", api.port())) {
      long nodesBefore = api.nodeRows("board");
      socket.setSoTimeout(5000);
      var out = socket.getOutputStream();
      out.write(("POST /v1/nodes/board HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\n"
          + "Content-Length: 40\r\n\r\n{\"data\": ").getBytes(java.nio.charset.StandardCharsets.UTF_8));
      out.flush();
      long started = System.nanoTime();

      StringBuilder answer = new StringBuilder();
      var in = socket.getInputStream();
      for (int b = in.read(); b >= 0 && !answer.toString().endsWith("}}"); b = in.read()) {
        answer.append((char) b);
      }
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(answer.toString()).startsWith("HTTP/1.1 503").contains("\"code\":\"unavailable\"").contains("Retry-After");
      assertThat(took).isLessThan(Duration.ofSeconds(3));
      assertThat(api.nodeRows("board")).isEqualTo(nodesBefore);
    }
  }
}
