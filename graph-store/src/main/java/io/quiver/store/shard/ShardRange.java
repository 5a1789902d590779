package io.quiver.store.shard;

import io.quiver.core.GraphException;
import io.quiver.store.NodeId;

/** The shards {@code from..to} (inclusive) and the host that holds them. */
public record ShardRange(int from, int to, String host) {
  public ShardRange {
    if (from < 0 || to > NodeId.MAX_SHARD || from > to) {
      throw GraphException.invalid(
          "shard range " + from + ".." + to + " must lie within 0.." + NodeId.MAX_SHARD + " with from <= to");
    }
  }

  public boolean contains(int shard) {
    return shard >= from && shard <= to;
  }

  public int size() {
    return to - from + 1;
  }
}
