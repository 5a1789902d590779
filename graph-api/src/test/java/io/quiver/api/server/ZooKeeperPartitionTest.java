package io.quiver.api.server;

import static io.vertx.core.http.HttpMethod.GET;
import static io.vertx.core.http.HttpMethod.PATCH;
import static io.vertx.core.http.HttpMethod.POST;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import ch.qos.logback.classic.Level;
import io.quiver.api.testing.ApiFixture;
import io.quiver.api.testing.BlackHoleProxy;
import io.quiver.cache.CacheSettings;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.store.testing.TestBackend;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * A server cut from ZooKeeper long enough for its session to expire is dropped from its peers'
 * invalidation lists, so writes through the others are never announced to it. Its cache must not
 * serve what they changed for longer than the stale bound: not during the partition, and not after
 * it heals (this server saw a node stale 99 s after a heal before the bound existed).
 */
class ZooKeeperPartitionTest {
  private static final Duration BOUND = Duration.ofSeconds(1);
  private static final Duration SESSION = Duration.ofSeconds(3);

  @Test
  void aServerCutFromZooKeeper_servesNoStaleReadBeyondTheBound_duringThePartitionOrAfterItHeals() throws Exception {
    CacheSettings cache = CacheSettings.defaults().withPeersPath(ApiFixture.CACHE_PEERS_PATH).withStaleBound(BOUND);
    // A session expired on purpose: Curator's recipes and ZooKeeper's client say so at WARN and ERROR.
    try (ExpectedLog log = ExpectedLog.named("org.apache.curator", "org.apache.zookeeper", "io.quiver");
        BlackHoleProxy zooKeeper = new BlackHoleProxy(TestBackend.get().zooKeeperConnectString());
        ApiFixture cut = new ApiFixture(zooKeeper.address(), SESSION, cache);
        ApiFixture writer = new ApiFixture(TestBackend.get().zooKeeperConnectString(), SESSION, cache)) {
      Await.until("the servers know each other", Duration.ofSeconds(5),
          () -> writer.server.cache().orElseThrow().peerCount() > 0 && cut.server.cache().orElseThrow().peerCount() > 0);
      String user = writer.call(POST, "/v1/nodes/user", "{\"data\": {\"name\": \"v1\"}}").id();
      assertThat(version(cut, user)).as("cached by the server to be cut").isEqualTo(1);

      zooKeeper.blackHole();
      int peersBefore = writer.server.cache().orElseThrow().peerCount();
      Await.until("the writer drops the cut server once its session expires", SESSION.multipliedBy(4),
          () -> writer.server.cache().orElseThrow().peerCount() < peersBefore);
      writer.call(PATCH, "/v1/nodes/" + user, "{\"data\": {\"name\": \"v2\"}}");
      assertThat(version(writer, user)).isEqualTo(2);
      Await.until("during the partition, the unannounced write is seen through the cut server within the bound",
          BOUND.plusMillis(500), () -> version(cut, user) == 2);

      zooKeeper.heal();
      Await.until("the cut server rejoins", SESSION.multipliedBy(4),
          () -> writer.server.cache().orElseThrow().peerCount() >= peersBefore);
      assertThat(version(cut, user)).as("after the heal: its cache was dropped when it rejoined").isEqualTo(2);
      writer.call(PATCH, "/v1/nodes/" + user, "{\"data\": {\"name\": \"v3\"}}");
      Await.until("a write after the heal is announced to the rejoined server again", BOUND,
          () -> version(cut, user) == 3);
      assertThat(log.messages(Level.WARN)).as("the cut server told its operator")
          .anyMatch(line -> line.startsWith("cut from ZooKeeper: the cache stops answering"));
      assertThat(log.loggers(Level.ERROR)).as("no error of Quiver's own").allMatch(name -> name.startsWith("org.apache"));
    }
  }

  private static int version(ApiFixture server, String node) {
    return server.call(GET, "/v1/nodes/" + node).body().get("version").asInt();
  }
}
