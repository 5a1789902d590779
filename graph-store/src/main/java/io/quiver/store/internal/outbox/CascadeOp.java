package io.quiver.store.internal.outbox;

import io.quiver.store.NodeId;

/** Remove every edge from {@code node}, which was deleted in the transaction that left this entry. */
public record CascadeOp(NodeId node) implements OutboxOp {
  @Override
  public Kind kind() {
    return Kind.CASCADE_DELETE;
  }
}
