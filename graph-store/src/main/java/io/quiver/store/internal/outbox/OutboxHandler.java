package io.quiver.store.internal.outbox;

import io.vertx.core.Future;

/**
 * Carries out one kind of outbox work. Handlers must be idempotent: an entry is deleted only
 * after its handler succeeded, so a crash or a lease handover may run it twice.
 */
@FunctionalInterface
public interface OutboxHandler<T extends OutboxOp> {
  Future<?> apply(T op);

  /**
   * Carries out many operations of the kind, as if one by one: a handler that can batch them (in
   * fewer transactions) overrides it. A failure says nothing of which succeeded; the drainer then
   * handles them one by one.
   */
  default Future<?> applyAll(java.util.List<T> ops) {
    Future<?> done = Future.succeededFuture();
    for (T op : ops) {
      done = done.compose(previous -> apply(op));
    }
    return done;
  }
}
