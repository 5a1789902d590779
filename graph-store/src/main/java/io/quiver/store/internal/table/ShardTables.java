package io.quiver.store.internal.table;

import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import java.util.ArrayList;
import java.util.List;

/** Every table a shard holds under a schema: one per node type and one per unique field of it, one per
 * edge type, counts, the outbox, the change log, bulk imports' references and the inverse marks. */
public final class ShardTables {
  private ShardTables() {}

  public static List<ShardTable> of(Schema schema) {
    List<ShardTable> tables = new ArrayList<>();
    for (NodeType type : schema.nodeTypes().values()) {
      tables.add(new NodesTable(type));
      type.uniqueFields().keySet().forEach(field -> tables.add(new UniqueTable(type, field)));
    }
    for (EdgeType type : schema.edgeTypes().values()) {
      tables.add(new EdgesTable(type));
    }
    tables.add(CountsTable.INSTANCE);
    tables.add(OutboxTable.INSTANCE);
    tables.add(ChangesTable.INSTANCE);
    tables.add(ImportRefsTable.INSTANCE);
    tables.add(InverseMarksTable.INSTANCE);
    return tables;
  }
}
