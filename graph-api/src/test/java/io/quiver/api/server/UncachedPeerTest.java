package io.quiver.api.server;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static io.vertx.core.http.HttpMethod.PUT;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.api.config.QuiverConfig;
import io.quiver.api.testing.ApiFixture;
import io.quiver.cache.CacheSettings;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A server running without a cache still tells the others what it changed: a client's write
 * through it, and the inverse edge it writes, reach a cached server's copies at once (not after
 * the five-minute safety TTL).
 */
class UncachedPeerTest {

  @Test
  void writesThroughAServerWithoutACache_reachTheCachedServersCopies() throws Exception {
    CacheSettings noCache = CacheSettings.defaults().withPeersPath(ApiFixture.CACHE_PEERS_PATH).disabled();
    try (ApiFixture cached = new ApiFixture();
        ApiFixture uncached = new ApiFixture(TestBackend.get().poolSettings(), QuiverConfig.DEFAULT_REQUEST_TIMEOUT,
            noCache)) {
      assertThat(uncached.server.cache()).isEmpty();
      Await.until("the uncached server registered as a peer", Duration.ofSeconds(5),
          () -> cached.server.cache().orElseThrow().peerCount() >= 1);
      String board = cached.call(POST, "/v1/nodes/board", "{\"data\": {\"title\": \"before\"}}").body().get("id").asText();
      String pin = cached.call(POST, "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}}").body().get("id").asText();
      assertThat(cached.call(GET, "/v1/nodes/" + board).body().get("version").asInt()).isEqualTo(1);
      assertThat(cached.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/count").body().get("count").asLong())
          .isZero();

      uncached.call(PATCH, "/v1/nodes/" + board, "{\"data\": {\"title\": \"after\"}}");
      uncached.call(PUT, "/v1/nodes/" + board + "/edges/board_has_pins/" + pin + "?waitForInverse=true", "{}");

      Await.until("the node write is seen through the cached server", Duration.ofSeconds(5),
          () -> cached.call(GET, "/v1/nodes/" + board).body().get("version").asInt() == 2);
      Await.until("the inverse edge is seen through the cached server", Duration.ofSeconds(5),
          () -> cached.call(GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board/count").body().get("count").asLong()
              == 1);
    }
  }
}
