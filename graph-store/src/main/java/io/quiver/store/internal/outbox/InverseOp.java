package io.quiver.store.internal.outbox;

import io.quiver.store.NodeId;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.OutboxTable;

/**
 * Set one copy of an edge: the row (from, to) of edge type {@code edgeTypeId} becomes
 * {@code row}, if {@code row} outranks what the copy holds ({@link EdgeRow}). Stored as the copy
 * it writes: the outbox's columns are an edge row's.
 */
public record InverseOp(int edgeTypeId, NodeId from, NodeId to, EdgeRow row) implements OutboxOp {
  @Override
  public Kind kind() {
    return Kind.INVERSE_EDGE;
  }

  @Override
  public OutboxTable.Columns columns() {
    return new OutboxTable.Columns(Kind.INVERSE_EDGE.code(), edgeTypeId, from.value(), to.value(), row.state(),
        row.sequence(), row.data(), row.updatedUs());
  }

  /** The inverse-edge entry stored as {@code columns}. */
  public static InverseOp of(OutboxTable.Columns columns) {
    return new InverseOp(columns.typeId(), new NodeId(columns.from()), new NodeId(columns.to()),
        new EdgeRow(columns.sequence(), columns.state(), columns.data(), columns.updatedUs()));
  }
}
