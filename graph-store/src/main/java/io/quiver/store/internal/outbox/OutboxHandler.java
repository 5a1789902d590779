package io.quiver.store.internal.outbox;

import io.vertx.core.Future;

/**
 * Carries out one kind of outbox work. Handlers must be idempotent: an entry is deleted only
 * after its handler succeeded, so a crash or a lease handover may run it twice.
 */
@FunctionalInterface
public interface OutboxHandler<T extends OutboxOp> {
  Future<?> apply(T op);
}
