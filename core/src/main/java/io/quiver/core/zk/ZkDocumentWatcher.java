package io.quiver.core.zk;

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
 * Keeps the newest valid version of one document and tells listeners when it changes.
 *
 * <p>Lifecycle: latent, then {@link #start() started}, then {@link #close() closed}. While
 * ZooKeeper is away, or when an invalid document is written, the last known good version keeps
 * serving: a server never stops because its coordinator blinked. Versions only move forward; a
 * stale document delivered late is ignored. Readers get the current version with one volatile
 * read, so the request path never waits on ZooKeeper.
 */
public class ZkDocumentWatcher<T> implements DocumentSource<T>, AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(ZkDocumentWatcher.class);

  private enum State { LATENT, STARTED, CLOSED }

  private final CuratorCache cache;
  private final String path;
  private final DocumentCodec<T> codec;
  private final AtomicReference<T> current;
  private final AtomicReference<State> state = new AtomicReference<>(State.LATENT);
  private final List<Consumer<T>> listeners = new CopyOnWriteArrayList<>();
  private final CountDownLatch firstDocument = new CountDownLatch(1);
  private final CountDownLatch initialized = new CountDownLatch(1);
  /** The newest version every listener has been told of; guarded by {@code this}. */
  private long told;

  /**
   * @param initial what is served before any document arrives; null for nothing
   */
  public ZkDocumentWatcher(CuratorFramework client, String path, DocumentCodec<T> codec, T initial) {
    this.path = path;
    this.codec = codec;
    this.current = new AtomicReference<>(initial);
    this.told = versionOf(initial);
    this.cache = CuratorCache.build(client, path, CuratorCache.Options.SINGLE_NODE_CACHE);
    cache.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> accept(after))
        .forInitialized(initialized::countDown)
        .build());
  }

  public void start() {
    if (!state.compareAndSet(State.LATENT, State.STARTED)) {
      throw new IllegalStateException("a watcher can be started once, and this one is " + state.get());
    }
    cache.start();
  }

  /** Blocks until a valid document has arrived; for startup only. */
  public T awaitFirst(Duration timeout) throws InterruptedException, TimeoutException {
    if (!firstDocument.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new TimeoutException("no valid document at " + path + " within " + timeout);
    }
    return current.get();
  }

  /** Blocks until ZooKeeper's state has been read once, present or not; for startup only. */
  public T awaitInitialized(Duration timeout) throws InterruptedException, TimeoutException {
    if (!initialized.await(timeout.toMillis(), TimeUnit.MILLISECONDS)) {
      throw new TimeoutException("could not read " + path + " within " + timeout);
    }
    return current.get();
  }

  /**
   * Blocks until at least {@code version} is in force, its listeners told — for admin calls that
   * must read their own write: a shard map is in force once the router routes by it, not when this
   * watcher first holds it (a node created in between was placed by the old map and refused by
   * the new one).
   */
  public T awaitVersion(long version, Duration timeout) throws InterruptedException, TimeoutException {
    long deadline = System.nanoTime() + timeout.toNanos();
    synchronized (this) {
      while (told < version) {
        long left = TimeUnit.NANOSECONDS.toMillis(deadline - System.nanoTime());
        if (left <= 0) {
          throw new TimeoutException("version " + version + " of " + path + " did not arrive within " + timeout);
        }
        wait(left);
      }
    }
    return current.get();
  }

  public T current() {
    return current.get();
  }

  /** Called with every newer version, on a ZooKeeper thread. */
  public void onChange(Consumer<T> listener) {
    listeners.add(listener);
  }

  private void accept(ChildData node) {
    if (node == null || !path.equals(node.getPath()) || node.getData() == null) {
      return;
    }
    T document;
    try {
      document = codec.parse(node.getData());
    } catch (RuntimeException invalid) {
      log.error("ignoring an invalid document at {}; keeping version {}: {}",
          path, versionOf(current.get()), invalid.getMessage());
      return;
    }
    T previous = current.getAndAccumulate(document,
        (old, candidate) -> old == null || codec.version(candidate) > codec.version(old) ? candidate : old);
    if (previous != null && codec.version(document) <= codec.version(previous)) {
      return;
    }
    firstDocument.countDown();
    for (Consumer<T> listener : listeners) {
      try {
        listener.accept(document);
      } catch (RuntimeException e) {
        log.error("a listener of {} failed on version {}", path, codec.version(document), e);
      }
    }
    synchronized (this) {
      told = Math.max(told, codec.version(document));
      notifyAll();
    }
    log.info("{} version {} in force", path, codec.version(document));
  }

  private long versionOf(T document) {
    return document == null ? -1 : codec.version(document);
  }

  @Override
  public void close() {
    if (state.getAndSet(State.CLOSED) == State.STARTED) {
      cache.close();
    }
  }
}
