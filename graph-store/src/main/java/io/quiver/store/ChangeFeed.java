package io.quiver.store;

import java.util.function.Consumer;

/**
 * Every committed change made through one {@link GraphBackend}, announced once, after commit,
 * on the thread that completed the write: client writes, the inverse applier, cascades and
 * repairs alike. Caches subscribe to keep their copies, and the invalidation channel to tell the
 * other servers. A listener must be quick and must not block; one that throws is logged and the
 * others are still told.
 */
public interface ChangeFeed {

  /** Calls {@code listener} with every change from now on, until the subscription is closed. */
  Subscription subscribe(Consumer<GraphChange> listener);

  /** A registration that can be removed; closing it twice is harmless. */
  @FunctionalInterface
  interface Subscription extends AutoCloseable {
    @Override
    void close();
  }
}
