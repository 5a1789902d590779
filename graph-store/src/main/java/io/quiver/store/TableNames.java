package io.quiver.store;

import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.NodesTable;

/**
 * The qualified, quoted names of a shard's tables, for operators' SQL and for the hand-written
 * SQL baseline of the benchmarks — taken from the table classes that own them, so a name is
 * written in one place. Quiver's own statements never go through here.
 */
public final class TableNames {
  private TableNames() {}

  /** A node type's object table on a shard, such as {@code `db00003`.`nodes_pin`}. */
  public static String nodes(int shard, NodeType type) {
    return new NodesTable(type).on(shard);
  }

  /** An edge type's mapping table on a shard. */
  public static String edges(int shard, EdgeType type) {
    return new EdgesTable(type).on(shard);
  }

  /** The edge counts of a shard. */
  public static String counts(int shard) {
    return CountsTable.INSTANCE.on(shard);
  }
}
