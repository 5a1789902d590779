package io.quiver.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.core.testing.Await;
import ch.qos.logback.classic.Level;
import io.quiver.core.GraphException;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.core.zk.ZkDocumentWatcher;
import io.quiver.store.testing.TestBackend;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.Test;

/** The shard map's life in a real ZooKeeper: compare-and-set publishing, watching, last known good. */
class ShardMapWatcherTest {
  private final CuratorFramework curator = TestBackend.get().curator();
  private final ShardMap base = TestBackend.get().shardMap();

  private static String uniquePath() {
    return "/watcher-test/" + System.nanoTime();
  }

  @Test
  void publish_requiresTheNextVersion() throws Exception {
    ShardMapStore store = new ShardMapStore(curator, uniquePath());
    store.publish(base.withVersion(1));
    store.publish(base.withVersion(2));

    assertThatThrownBy(() -> store.publish(base.withVersion(2))).isInstanceOf(GraphException.class)
        .extracting(failure -> ((GraphException) failure).code()).isEqualTo(GraphException.Code.VERSION_CONFLICT);
    assertThatThrownBy(() -> store.publish(base.withVersion(4))).isInstanceOf(GraphException.class)
        .extracting(failure -> ((GraphException) failure).code()).isEqualTo(GraphException.Code.VERSION_CONFLICT);
    assertThat(store.read()).map(ShardMap::version).contains(2L);
  }

  @Test
  void watcher_swapsInEveryNewVersion_withinASecond() throws Exception {
    String path = uniquePath();
    ShardMapStore store = new ShardMapStore(curator, path);
    store.publish(base.withVersion(1));
    try (ShardMapWatcher watcher = new ShardMapWatcher(curator, path)) {
      List<Long> seen = new CopyOnWriteArrayList<>();
      watcher.onChange(map -> seen.add(map.version()));
      watcher.start();
      assertThat(watcher.awaitFirst(Duration.ofSeconds(5)).version()).isEqualTo(1);

      store.publish(base.withVersion(2).withState(3, ShardState.READ_ONLY));

      Await.until("the watcher swaps in version 2", Duration.ofSeconds(1), () -> watcher.current().version() >= 2);
      assertThat(watcher.current().version()).isEqualTo(2);
      assertThat(watcher.current().stateOf(3)).isEqualTo(ShardState.READ_ONLY);
      assertThat(seen).containsExactly(1L, 2L);
    }
  }

  @Test
  void awaitVersion_returnsOnlyOnceEveryListenerHasTheVersion_soAnAdminCallThatWaitsRoutesByItsOwnChange()
      throws Exception {
    String path = uniquePath();
    ShardMapStore store = new ShardMapStore(curator, path);
    store.publish(base.withVersion(1));
    CountDownLatch told = new CountDownLatch(1);
    CountDownLatch release = new CountDownLatch(1);
    try (ShardMapWatcher watcher = new ShardMapWatcher(curator, path)) {
      // As the router does: a listener that takes the map in. This one holds version 2 until released.
      watcher.onChange(map -> {
        if (map.version() == 2) {
          told.countDown();
          awaitQuietly(release);
        }
      });
      watcher.start();
      watcher.awaitFirst(Duration.ofSeconds(5));

      store.publish(base.withVersion(2));
      assertThat(told.await(5, TimeUnit.SECONDS)).isTrue();

      assertThat(watcher.current().version()).as("the watcher holds version 2").isEqualTo(2);
      assertThatThrownBy(() -> watcher.awaitVersion(2, Duration.ofMillis(200)))
          .as("but its listener has not taken it in").isInstanceOf(TimeoutException.class);
      release.countDown();
      assertThat(watcher.awaitVersion(2, Duration.ofSeconds(5)).version()).isEqualTo(2);
    }
  }

  private static void awaitQuietly(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  @Test
  void watcher_keepsTheLastGoodMap_whenAnInvalidDocumentIsWritten() throws Exception {
    String path = uniquePath();
    new ShardMapStore(curator, path).publish(base.withVersion(1));
    try (ShardMapWatcher watcher = new ShardMapWatcher(curator, path);
        ExpectedLog log = ExpectedLog.of(ZkDocumentWatcher.class)) {
      watcher.start();
      watcher.awaitFirst(Duration.ofSeconds(5));

      curator.setData().forPath(path, "{\"version\": 9, \"ranges\": \"broken\"}".getBytes(StandardCharsets.UTF_8));
      assertThat(log.await(Level.ERROR, "ignoring an invalid document at " + path, Duration.ofSeconds(5)))
          .contains("keeping version 1");
      curator.setData().forPath(path, ShardMapJson.toBytes(base.withVersion(10)));

      Await.until("the watcher swaps in version 10", Duration.ofSeconds(2), () -> watcher.current().version() >= 10);
      assertThat(watcher.current().version()).isEqualTo(10);
    }
  }
}
