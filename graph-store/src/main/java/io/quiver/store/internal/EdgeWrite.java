package io.quiver.store.internal;

import io.quiver.store.Edge;
import io.quiver.store.EdgeResult;
import io.quiver.store.GraphChange;
import io.quiver.store.ReadToken;
import io.quiver.store.internal.outbox.InverseOp;

/**
 * What a client edge write did.
 *
 * @param change what the write did to the forward copy
 * @param inverse the inverse copy the write left to be written; null when the edge type has no
 *     inverse (or the edge is a symmetric self-loop, its own inverse)
 * @param changed what to announce on the change feed; null when nothing was written
 * @param edge the edge as written, listed or archived; null for a removal
 */
record EdgeWrite(PendingInverse inverse, EdgeResult.Change change, GraphChange.EdgeChanged changed, Edge edge) {

  /** A write whose edge is the one its change lists (an add or a removal). */
  EdgeWrite(PendingInverse inverse, EdgeResult.Change change, GraphChange.EdgeChanged changed) {
    this(inverse, change, changed, changed == null ? null : changed.edge());
  }

  /**
   * The inverse copy a write left to be written ({@code op}) and where it waits: the outbox entry
   * {@code entryId} on {@code shard}, the forward copy's shard; or, when the change log is written
   * from the binary log, nowhere but there (entryId 0): the host's tailer reads the forward copy
   * and writes its inverse ({@code ChangeTailer}).
   *
   * @param writtenType the id of the edge type whose copy the write wrote (from {@code op.to()} to {@code op.from()})
   */
  record PendingInverse(int shard, long entryId, int writtenType, InverseOp op) {
    /** Whether an outbox entry holds the inverse until it is written. */
    boolean outboxed() {
      return entryId > 0;
    }

    /** What a later read must see first: the entry applied, or the written copy's mirror caught up with it. */
    ReadToken token() {
      return outboxed() ? ReadToken.of(shard, entryId)
          : ReadToken.ofCopy(writtenType, op.to().value(), op.from().value());
    }
  }
}
