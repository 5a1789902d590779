package io.quiver.store.internal.outbox;

import io.quiver.store.internal.table.OutboxTable;

/** An outbox row: work waiting on the shard whose write left it, and how often it has failed. */
public record OutboxEntry(long id, int shard, OutboxOp op, int attempts) {
  /** The entry {@code stored} on {@code shard}, its work read back by its kind ({@link OutboxOp#of}). */
  public static OutboxEntry of(int shard, OutboxTable.Stored stored) {
    return new OutboxEntry(stored.id(), shard, OutboxOp.of(stored.columns()), stored.attempts());
  }
}
