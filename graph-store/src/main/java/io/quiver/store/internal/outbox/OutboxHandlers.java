package io.quiver.store.internal.outbox;

import io.vertx.core.Future;

/** One handler per kind of outbox work; a new kind adds a component and a branch here. */
public record OutboxHandlers(OutboxHandler<InverseOp> inverses, OutboxHandler<CascadeOp> cascades,
    OutboxHandler<UniqueReleaseOp> releases) {

  /** Inverse-edge operations, batched by their handler. */
  public Future<?> applyInverses(java.util.List<InverseOp> ops) {
    return inverses.applyAll(ops);
  }

  public Future<?> apply(OutboxOp op) {
    if (op instanceof InverseOp inverse) {
      return inverses.apply(inverse);
    }
    if (op instanceof UniqueReleaseOp release) {
      return releases.apply(release);
    }
    return cascades.apply((CascadeOp) op);
  }
}
