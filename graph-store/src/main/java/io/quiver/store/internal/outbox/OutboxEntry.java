package io.quiver.store.internal.outbox;

/** An outbox row: work waiting on the shard whose write left it, and how often it has failed. */
public record OutboxEntry(long id, int shard, OutboxOp op, int attempts) {}
