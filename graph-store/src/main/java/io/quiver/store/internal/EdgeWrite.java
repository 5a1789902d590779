package io.quiver.store.internal;

import io.quiver.store.Edge;
import io.quiver.store.EdgeResult;
import io.quiver.store.GraphChange;

/**
 * What a client edge write did.
 *
 * @param change what the write did to the forward copy
 * @param inverse the outbox entry that will write the inverse copy; null when the edge type has
 *     no inverse (or the edge is a symmetric self-loop, its own inverse)
 * @param changed what to announce on the change feed; null when nothing was written
 * @param edge the edge as written, listed or archived; null for a removal
 */
record EdgeWrite(PendingInverse inverse, EdgeResult.Change change, GraphChange.EdgeChanged changed, Edge edge) {

  /** A write whose edge is the one its change lists (an add or a removal). */
  EdgeWrite(PendingInverse inverse, EdgeResult.Change change, GraphChange.EdgeChanged changed) {
    this(inverse, change, changed, changed == null ? null : changed.edge());
  }

  /** An outbox entry: on which shard, with which id. */
  record PendingInverse(int shard, long entryId) {}
}
