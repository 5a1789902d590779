package io.quiver.store.internal.outbox;

import io.quiver.store.NodeId;
import io.quiver.store.internal.table.OutboxTable;

/**
 * Carry a node's state over to all its edges, in the transaction that changed the node (or
 * asked for it): {@link Kind#CASCADE_DELETE} removes every edge from a deleted node, archived ones
 * included; {@link Kind#CASCADE_ARCHIVE} archives its active edges (an account suspended);
 * {@link Kind#CASCADE_RESTORE} restores its archived ones. Incoming edges follow through their
 * inverses, as for any single write.
 *
 * <p>Stored as the node in {@code from_id} (and {@code to_id}), every other column zero: the
 * kind says the rest.
 */
public record CascadeOp(NodeId node, Kind kind) implements OutboxOp {
  public CascadeOp {
    if (kind != Kind.CASCADE_DELETE && kind != Kind.CASCADE_ARCHIVE && kind != Kind.CASCADE_RESTORE) {
      throw new IllegalArgumentException(kind + " is not a cascade");
    }
  }

  @Override
  public OutboxTable.Columns columns() {
    return new OutboxTable.Columns(kind.code(), 0, node.value(), node.value(), 0, 0, null, 0);
  }

  static CascadeOp of(OutboxTable.Columns columns) {
    return new CascadeOp(new NodeId(columns.from()), Kind.of(columns.kind()));
  }
}
