package io.quiver.shard;

import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Keeps the newest valid shard map from ZooKeeper and tells listeners when it changes.
 *
 * <p>Lifecycle: latent, then {@link #start() started}, then {@link #close() closed}. While
 * ZooKeeper is away, or when a published document is invalid, the last known good map keeps
 * serving: a server never stops routing because its coordinator blinked. Versions only move
 * forward; a stale document delivered late is ignored.
 */
public final class ShardMapWatcher implements ShardMapSource, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ShardMapWatcher.class);

  private enum State { LATENT, STARTED, CLOSED }

  private final CuratorCache cache;
  private final String path;
  private final AtomicReference<ShardMap> current = new AtomicReference<>();
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final List<Consumer<ShardMap>> listeners = new CopyOnWriteArrayList<>();
  private final CountDownLatch firstMap = new CountDownLatch(1);

  public ShardMapWatcher(CuratorFramework client, String path) {
    this.path = path;
    this.cache = CuratorCache.build(client, path, CuratorCache.Options.SINGLE_NODE_CACHE);
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> accept(after))
        .build());
  }

  public void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("the watcher can be started once, and is " + state.get());
    }
    cache.start();
  }

  /** Blocks until a valid map has arrived; for startup only. */
  public ShardMap awaitFirst(Duration timeout) throws InterruptedException, TimeoutException {
    if (!firstMap.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new TimeoutException("no valid shard map at " + path + " within " + timeout);
    }
    return current.get();
  }

  @Override
  public ShardMap current() {
    return current.get();
  }

  /** Called with every newer map, on a ZooKeeper thread. */
  @Override
  public void onChange(Consumer<ShardMap> listener) {
    listeners.add(listener);
  }

  private void accept(ChildData node) {
    if (node == null || !path.equals(node.getPath()) || node.getData() == null) {
      return;
    }
    ShardMap map;
    try {
      map = ShardMapJson.parse(node.getData());
    } catch (IllegalArgumentException invalid) {
      log.error("ignoring an invalid shard map at {}; keeping version {}: {}",
          path, versionOf(current.get()), invalid.getMessage());
      return;
    }
    ShardMap previous = current.getAndAccumulate(map,
        (old, candidate) -> old == null || candidate.version() > old.version() ? candidate : old);
    if (previous != null && map.version() <= previous.version()) {
      return;
    }
    log.info("shard map version {} in force", map.version());
    firstMap.countDown();
    for (Consumer<ShardMap> listener : listeners) {
      try {
        listener.accept(map);
      } catch (RuntimeException e) {
        log.error("a shard map listener failed on version {}", map.version(), e);
      }
    }
  }

  private static String versionOf(ShardMap map) {
    return map == null ? "none" : Long.toString(map.version());
  }

  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.STARTED) {
      cache.close();
    }
  }
}
