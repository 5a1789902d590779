package io.quiver.store.internal.outbox;

import io.quiver.schema.EdgeType;
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

  /**
   * The operation that tells the other copy of {@code type}'s edge (from, to) that it now holds
   * {@code written}: the copy (to, from) of {@code inverse}. Null when there is no other copy — no
   * inverse defined ({@code inverse} null), or a symmetric type's edge from a node to itself, whose
   * one row is both copies. Every writer of a copy (a client's write, the bulk import, the tailer
   * reading the binary log, a read settling a token) asks this, so all mean one pair.
   */
  public static InverseOp mirror(EdgeType type, EdgeType inverse, NodeId from, NodeId to, EdgeRow written) {
    boolean selfInverse = inverse != null && type.symmetric() && from.equals(to);
    return inverse == null || selfInverse ? null : new InverseOp(inverse.id(), to, from, written);
  }

  /** The inverse-edge entry stored as {@code columns}. */
  public static InverseOp of(OutboxTable.Columns columns) {
    return new InverseOp(columns.typeId(), new NodeId(columns.from()), new NodeId(columns.to()),
        new EdgeRow(columns.sequence(), columns.state(), columns.data(), columns.updatedUs()));
  }
}
