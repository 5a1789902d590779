package io.quiver.core.zk;

import java.time.Duration;
import java.util.concurrent.TimeoutException;
import java.util.function.Consumer;

/**
 * Where a versioned document in force comes from — the schema, the shard map — and how its newer
 * versions are announced: a watcher of ZooKeeper ({@link ZkDocumentWatcher}) in a server, a fixed
 * document in tools and tests. Callers take one snapshot per request and use it throughout, so a
 * request never mixes two versions.
 *
 * @param <D> the document
 */
public interface DocumentSource<D> {
  /** The newest valid document; never null once the source has delivered its first. */
  D current();

  /**
   * Waits until the source serves {@code version} or a newer one, so a caller can read its own
   * change; a fixed source answers at once. Blocking: never call it on an event loop.
   */
  default D awaitVersion(long version, Duration timeout) throws InterruptedException, TimeoutException {
    return current();
  }

  /** Calls {@code listener} with every newer document; a fixed source never changes. */
  default void onChange(Consumer<D> listener) {
  }
}
