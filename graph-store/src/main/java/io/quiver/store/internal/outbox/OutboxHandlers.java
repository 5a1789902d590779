package io.quiver.store.internal.outbox;

import io.vertx.core.Future;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/**
 * One handler per kind of outbox work, found by the operation's {@link OutboxOp.Kind}: a new kind
 * adds a component here and nothing in the drainer. Each handler is given only operations of its
 * own class ({@link Class#cast}, checked once here), singly or as a batch.
 */
public final class OutboxHandlers {
  private final Map<OutboxOp.Kind, OutboxHandler<OutboxOp>> byKind = new EnumMap<>(OutboxOp.Kind.class);

  public OutboxHandlers(OutboxHandler<InverseOp> inverses, OutboxHandler<CascadeOp> cascades,
      OutboxHandler<UniqueReleaseOp> releases) {
    handle(InverseOp.class, inverses, OutboxOp.Kind.INVERSE_EDGE);
    handle(CascadeOp.class, cascades, OutboxOp.Kind.CASCADE_DELETE, OutboxOp.Kind.CASCADE_ARCHIVE,
        OutboxOp.Kind.CASCADE_RESTORE);
    handle(UniqueReleaseOp.class, releases, OutboxOp.Kind.UNIQUE_RELEASE);
    if (byKind.size() != OutboxOp.Kind.values().length) {
      throw new IllegalStateException("an outbox kind has no handler: " + byKind.keySet());
    }
  }

  private <T extends OutboxOp> void handle(Class<T> type, OutboxHandler<T> handler, OutboxOp.Kind... kinds) {
    OutboxHandler<OutboxOp> typed = new OutboxHandler<>() {
      @Override
      public Future<?> apply(OutboxOp op) {
        return handler.apply(type.cast(op));
      }

      @Override
      public Future<?> applyAll(List<OutboxOp> ops) {
        return handler.applyAll(ops.stream().map(type::cast).toList());
      }
    };
    for (OutboxOp.Kind kind : kinds) {
      byKind.put(kind, typed);
    }
  }

  /** Carries out one operation. */
  public Future<?> apply(OutboxOp op) {
    return byKind.get(op.kind()).apply(op);
  }

  /** Carries out operations all of {@code kind}, batched as its handler can ({@link OutboxHandler#applyAll}). */
  public Future<?> applyAll(OutboxOp.Kind kind, List<OutboxOp> ops) {
    return byKind.get(kind).applyAll(ops);
  }
}
