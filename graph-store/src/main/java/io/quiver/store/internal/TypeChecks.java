package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.Fields;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.Violation;
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

  public static EdgeType edgeType(Schema schema, String name) {
    return schema.edgeType(name)
        .orElseThrow(() -> GraphException.notFound("no edge type '" + name + "'"));
  }

  /** How validation reads type ids out of IDs and names ({@link NodeId#idTypes}). */
  public static Fields.IdTypes idTypes(Schema schema) {
    return NodeId.idTypes(schema);
  }

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
