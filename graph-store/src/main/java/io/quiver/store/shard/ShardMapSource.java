package io.quiver.store.shard;

import io.quiver.core.zk.DocumentSource;
import java.util.function.Consumer;

/** Where the shard map in force comes from, and how its changes are announced ({@link DocumentSource}). */
public interface ShardMapSource extends DocumentSource<ShardMap> {
  /** Registers a listener called with every newer map: every source of maps says so. */
  @Override
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
