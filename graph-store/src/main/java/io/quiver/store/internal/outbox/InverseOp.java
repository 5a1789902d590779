package io.quiver.store.internal.outbox;

import io.quiver.store.NodeId;
import io.quiver.store.internal.table.EdgeRow;

/**
 * Set one copy of an edge: the row (from, to) of edge type {@code edgeTypeId} becomes
 * {@code row}, if {@code row} outranks what the copy holds ({@link EdgeRow}).
 */
public record InverseOp(int edgeTypeId, NodeId from, NodeId to, EdgeRow row) implements OutboxOp {
  @Override
  public Kind kind() {
    return Kind.INVERSE_EDGE;
  }
}
