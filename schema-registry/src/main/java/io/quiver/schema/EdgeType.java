package io.quiver.schema;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import java.util.List;
import java.util.Objects;

/**
 * A kind of edge: a unidirectional mapping from nodes of type {@code from} to nodes of type
 * {@code to}, stored in {@code edges_<name>} on the FROM node's shard. {@code inverse} names the
 * edge type kept in the other direction (itself for a symmetric type), or is null.
 */
public record EdgeType(String name, int id, String from, String to, String inverse, Fields fields) {
  public static final int MIN_ID = 1;
  public static final int MAX_ID = 65535;

  public EdgeType {
    Names.requireValid("edge type", name);
    if (id < MIN_ID || id > MAX_ID) {
      throw GraphException.invalid(
          "edge type '" + name + "' has id " + id + "; ids run from " + MIN_ID + " to " + MAX_ID);
    }
    Names.requireValid("node type", from);
    Names.requireValid("node type", to);
    if (inverse != null) {
      Names.requireValid("edge type", inverse);
    }
    Objects.requireNonNull(fields, "fields");
    fields.definitions().forEach((field, def) -> {
      if (def.unique() != null) {
        throw GraphException.invalid("edge type '" + name + "' field '" + field
            + "' cannot be unique: only node types' fields have unique indexes");
      }
    });
  }

  /** This type with other fields (everything else kept). */
  public EdgeType withFields(Fields changed) {
    return new EdgeType(name, id, from, to, inverse, changed);
  }

  public boolean symmetric() {
    return name.equals(inverse);
  }

  public String tableName() {
    return "edges_" + name;
  }

  public List<Violation> validate(ObjectNode data, Fields.IdTypes ids) {
    return fields.validate(data, "data", ids);
  }

  public ObjectNode withDefaults(ObjectNode stored) {
    return fields.withDefaults(stored);
  }
}
