package io.quiver.shard;

import java.util.function.Consumer;

/** Where the shard map in force comes from, and how its changes are announced. */
public interface ShardMapSource {
  /** The newest valid map; never null once the source has delivered its first. */
  ShardMap current();

  /** Registers a listener called with every newer map. */
  void onChange(Consumer<ShardMap> listener);
}
