package io.quiver.store.shard;

import io.quiver.core.GraphException;
import io.quiver.store.NodeId;

/** The shards {@code from..to}, inclusive. */
public record ShardSpan(int from, int to) {
  public ShardSpan {
    if (from < 0 || to > NodeId.MAX_SHARD || from > to) {
      throw GraphException.invalid(
          "shard span " + from + ".." + to + " must lie within 0.." + NodeId.MAX_SHARD + " with from <= to");
    }
  }

  public int size() {
    return to - from + 1;
  }
}
