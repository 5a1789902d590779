package io.quiver.schema;

import io.quiver.core.GraphException;
import java.util.Collections;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * One consistent, immutable version of the registry. Everything a request needs to know about
 * types comes from the one snapshot it started with, so a concurrent change never shows it half
 * of one version and half of another.
 *
 * <p>The constructor checks that the snapshot is coherent on its own: names and ids unique,
 * edge endpoints and ID fields naming node types that exist, and every inverse pair naming each
 * other with endpoints reversed. Rules about changes from one version to the next belong to
 * the registry, not to a snapshot.
 */
public final class Schema {
  private final long version;
  private final Map<String, NodeType> nodeTypes;
  private final Map<String, EdgeType> edgeTypes;
  private final NodeType[] nodeTypesById = new NodeType[NodeType.MAX_ID + 1];
  private final Map<Integer, EdgeType> edgeTypesById = new TreeMap<>();

  public Schema(long version, Map<String, NodeType> nodeTypes, Map<String, EdgeType> edgeTypes) {
    if (version < 0) {
      throw GraphException.invalid("schema version must not be negative");
    }
    this.version = version;
    this.nodeTypes = Collections.unmodifiableMap(new TreeMap<>(nodeTypes));
    this.edgeTypes = Collections.unmodifiableMap(new TreeMap<>(edgeTypes));
    indexNodeTypes();
    indexEdgeTypes();
    checkReferences();
  }

  public static Schema empty() {
    return new Schema(0, Map.of(), Map.of());
  }

  public long version() {
    return version;
  }

  public Map<String, NodeType> nodeTypes() {
    return nodeTypes;
  }

  public Map<String, EdgeType> edgeTypes() {
    return edgeTypes;
  }

  public Optional<NodeType> nodeType(String name) {
    return Optional.ofNullable(nodeTypes.get(name));
  }

  public Optional<NodeType> nodeType(int id) {
    return id >= 0 && id < nodeTypesById.length
        ? Optional.ofNullable(nodeTypesById[id])
        : Optional.empty();
  }

  public Optional<EdgeType> edgeType(String name) {
    return Optional.ofNullable(edgeTypes.get(name));
  }

  public Optional<EdgeType> edgeType(int id) {
    return Optional.ofNullable(edgeTypesById.get(id));
  }

  /** The inverse {@code type} names, once defined; empty when it names none or it is not defined yet. */
  public Optional<EdgeType> inverseOf(EdgeType type) {
    return type.inverse() == null ? Optional.empty() : edgeType(type.inverse());
  }

  /** The edge types whose named inverse is not defined yet. */
  public java.util.List<EdgeType> pendingInverses() {
    return edgeTypes.values().stream()
        .filter(type -> type.inverse() != null && !edgeTypes.containsKey(type.inverse()))
        .toList();
  }

  /** This schema with a node type added or replaced, at the given version. */
  public Schema with(NodeType type, long newVersion) {
    Map<String, NodeType> changed = new TreeMap<>(nodeTypes);
    changed.put(type.name(), type);
    return new Schema(newVersion, changed, edgeTypes);
  }

  /** This schema with an edge type added or replaced, at the given version. */
  public Schema with(EdgeType type, long newVersion) {
    Map<String, EdgeType> changed = new TreeMap<>(edgeTypes);
    changed.put(type.name(), type);
    return new Schema(newVersion, nodeTypes, changed);
  }

  public Schema withVersion(long newVersion) {
    return new Schema(newVersion, nodeTypes, edgeTypes);
  }

  /** Whether the two define the same types, whatever their versions. */
  public boolean sameTypesAs(Schema other) {
    return nodeTypes.equals(other.nodeTypes) && edgeTypes.equals(other.edgeTypes);
  }

  private void indexNodeTypes() {
    for (Map.Entry<String, NodeType> entry : nodeTypes.entrySet()) {
      NodeType type = entry.getValue();
      if (!entry.getKey().equals(type.name())) {
        throw GraphException.invalid("node type '" + type.name() + "' is filed as '" + entry.getKey() + "'");
      }
      NodeType taken = nodeTypesById[type.id()];
      if (taken != null) {
        throw SchemaRule.TYPE_ID_NEVER_REUSED.refusal("type ids are never reused: node types '" + taken.name() + "' and '"
            + type.name() + "' share id " + type.id());
      }
      nodeTypesById[type.id()] = type;
    }
  }

  private void indexEdgeTypes() {
    for (Map.Entry<String, EdgeType> entry : edgeTypes.entrySet()) {
      EdgeType type = entry.getValue();
      if (!entry.getKey().equals(type.name())) {
        throw GraphException.invalid("edge type '" + type.name() + "' is filed as '" + entry.getKey() + "'");
      }
      EdgeType taken = edgeTypesById.putIfAbsent(type.id(), type);
      if (taken != null) {
        throw SchemaRule.TYPE_ID_NEVER_REUSED.refusal("type ids are never reused: edge types '" + taken.name() + "' and '"
            + type.name() + "' share id " + type.id());
      }
    }
  }

  private void checkReferences() {
    nodeTypes.values().forEach(type -> checkIdFields(type.name(), type.fields()));
    // Endpoints first: an inverse pair can only be judged once both ends name real types.
    for (EdgeType type : edgeTypes.values()) {
      requireNodeType(type.from(), "edge type '" + type.name() + "' from");
      requireNodeType(type.to(), "edge type '" + type.name() + "' to");
      checkIdFields(type.name(), type.fields());
    }
    for (EdgeType type : edgeTypes.values()) {
      if (type.inverse() != null) {
        checkInverse(type);
      }
    }
  }

  /**
   * An inverse pair must name each other with endpoints reversed. An edge type may name an
   * inverse that is not defined yet, because a pair is defined one type at a time; it is
   * {@link #pendingInverses() pending} until its partner arrives.
   */
  private void checkInverse(EdgeType type) {
    EdgeType inverse = edgeTypes.get(type.inverse());
    if (inverse == null) {
      return;
    }
    if (!type.name().equals(inverse.inverse())) {
      throw SchemaRule.INVERSE_PAIR_MISMATCH.refusal(
          "an inverse pair must name each other: '" + type.name() + "' names '" + inverse.name()
              + "' but '" + inverse.name() + "' names '" + inverse.inverse() + "'");
    }
    if (!type.from().equals(inverse.to()) || !type.to().equals(inverse.from())) {
      throw SchemaRule.INVERSE_PAIR_MISMATCH.refusal(
          "edge type '" + inverse.name() + "' must run from '" + type.to() + "' to '" + type.from()
              + "' to be the inverse of '" + type.name() + "'");
    }
  }

  private void checkIdFields(String owner, Fields fields) {
    fields.definitions().forEach((name, field) -> {
      if (field.nodeType() != null) {
        requireNodeType(field.nodeType(), "field '" + owner + "." + name + "'");
      }
    });
  }

  private void requireNodeType(String name, String where) {
    if (!nodeTypes.containsKey(name)) {
      throw SchemaRule.UNDEFINED_NODE_TYPE.refusal(where + " names node type '" + name + "', which is not defined");
    }
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof Schema that
        && version == that.version
        && nodeTypes.equals(that.nodeTypes)
        && edgeTypes.equals(that.edgeTypes);
  }

  @Override
  public int hashCode() {
    return Long.hashCode(version) * 31 + nodeTypes.hashCode();
  }

  @Override
  public String toString() {
    return "Schema{version=" + version + ", nodeTypes=" + nodeTypes.keySet()
        + ", edgeTypes=" + edgeTypes.keySet() + "}";
  }
}
