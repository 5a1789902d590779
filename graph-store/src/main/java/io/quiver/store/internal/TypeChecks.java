package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.Fields;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.Violation;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.NodeId;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** Resolving names and IDs against one schema snapshot, and refusing data that breaks it. */
public final class TypeChecks {
  private TypeChecks() {}

  public static NodeType nodeType(Schema schema, String name) {
    return schema.nodeType(name)
        .orElseThrow(() -> GraphException.notFound("no node type '" + name + "'"));
  }

  /**
   * The node type encoded in an ID. An ID whose type is unknown cannot have been issued by this
   * cluster, so it is an invalid argument rather than a missing node.
   */
  public static NodeType nodeType(Schema schema, NodeId id) {
    return schema.nodeType(id.type())
        .orElseThrow(() -> GraphException.invalid(
            "ID " + id + " has type id " + id.type() + ", which is not a node type"));
  }

  /**
   * The node type of an ID this cluster could have issued: its type in the schema, its shard in
   * the map, its local ID one a node can have. Anything else is a client bug (a corrupted ID, one
   * from another environment), refused as an invalid argument wherever the ID appears — a path,
   * a body member, a query parameter.
   */
  public static NodeType issued(Schema schema, ShardMap map, NodeId id) {
    NodeType type = nodeType(schema, id);
    if (map.rangeOf(id.shard()).isEmpty()) {
      throw GraphException.invalid("ID " + id + " names shard " + id.shard() + ", which is not in the shard map");
    }
    if (id.local() == 0) {
      throw GraphException.invalid("ID " + id + " has local ID 0, which no node has");
    }
    return type;
  }

  /** How validation reads types out of IDs in data: an ID this cluster could not have issued has none. */
  public static Fields.IdTypes idTypes(Schema schema, ShardMap map) {
    Fields.IdTypes types = NodeId.idTypes(schema);
    return new Fields.IdTypes() {
      @Override
      public int typeIdOf(String nodeType) {
        return types.typeIdOf(nodeType);
      }

      @Override
      public int typeOfId(long id) {
        NodeId nodeId = new NodeId(id);
        return map.rangeOf(nodeId.shard()).isEmpty() || nodeId.local() == 0 ? -1 : types.typeOfId(id);
      }
    };
  }

  public static EdgeType edgeType(Schema schema, String name) {
    return schema.edgeType(name)
        .orElseThrow(() -> GraphException.notFound("no edge type '" + name + "'"));
  }

  /** How validation reads type ids out of IDs and names ({@link NodeId#idTypes}). */

  /** Fails with SCHEMA_VIOLATION naming every offending field path, if there are any. */
  public static void requireValid(String what, List<Violation> violations) {
    if (violations.isEmpty()) {
      return;
    }
    Map<String, Object> fields = new LinkedHashMap<>();
    violations.forEach(violation -> fields.putIfAbsent(violation.path(), violation.message()));
    Violation first = violations.get(0);
    String message = violations.size() == 1
        ? what + " does not satisfy its type: " + first.path() + " " + first.message()
        : what + " does not satisfy its type in " + violations.size() + " places";
    throw GraphException.of(GraphException.Code.SCHEMA_VIOLATION, message, Map.of("fields", fields));
  }
}
