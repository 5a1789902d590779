package io.quiver.store.shard;

import java.util.function.Consumer;

/** Where the shard map in force comes from, and how its changes are announced. */
public interface ShardMapSource {
  /** The newest valid map; never null once the source has delivered its first. */
  ShardMap current();

  /**
   * Waits until the source serves {@code version} or a newer one, so an admin call reads its own
   * change; a fixed source answers at once. Blocking: never call it on an event loop.
   */
  default ShardMap awaitVersion(long version, java.time.Duration timeout)
      throws InterruptedException, java.util.concurrent.TimeoutException {
    return current();
  }

  /** Registers a listener called with every newer map. */
  void onChange(Consumer<ShardMap> listener);

  /** A map that never changes: for tools and tests. */
  static ShardMapSource fixed(ShardMap map) {
    java.util.Objects.requireNonNull(map, "map");
    return new ShardMapSource() {
      @Override
      public ShardMap current() {
        return map;
      }

      @Override
      public void onChange(Consumer<ShardMap> listener) {
      }
    };
  }
}
