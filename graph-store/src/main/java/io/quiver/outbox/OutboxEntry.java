package io.quiver.outbox;

/** An outbox row: an inverse operation waiting on the FROM shard of its forward write. */
public record OutboxEntry(long id, int shard, InverseOp op, int attempts) {}
