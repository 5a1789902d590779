package io.quiver.schema;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import java.util.List;
import java.util.Objects;

/**
 * A kind of node: its name (which names its table, {@code nodes_<name>}), its 10-bit type id
 * (which is encoded in every ID of its nodes) and its fields.
 */
public record NodeType(String name, int id, Fields fields) {
  public static final int MIN_ID = 1;
  public static final int MAX_ID = 1023;

  public NodeType {
    Names.requireValid("node type", name);
    if (id < MIN_ID || id > MAX_ID) {
      throw GraphException.invalid(
          "node type '" + name + "' has id " + id + "; ids run from " + MIN_ID + " to " + MAX_ID);
    }
    Objects.requireNonNull(fields, "fields");
    fields.definitions().forEach((field, def) -> {
      if (def.unique() != null && !Names.isValidTable(uniqueTableName(name, field))) {
        throw GraphException.invalid("unique field '" + field + "' of node type '" + name + "' names its lookup table "
            + uniqueTableName(name, field) + ", which must match " + Names.TABLE_NAME.pattern()
            + ": a lower-case name, short enough");
      }
    });
  }

  /** The lookup table of a unique field: {@code unique_<type>_<field>}, on every shard. */
  public static String uniqueTableName(String type, String field) {
    return "unique_" + type + "_" + field;
  }

  /** The fields with a unique index, in declaration order. */
  public java.util.Map<String, FieldDef> uniqueFields() {
    java.util.Map<String, FieldDef> unique = new java.util.LinkedHashMap<>();
    fields.definitions().forEach((field, def) -> {
      if (def.unique() != null) {
        unique.put(field, def);
      }
    });
    return unique;
  }

  /** This type with other fields (its name and id kept). */
  public NodeType withFields(Fields changed) {
    return new NodeType(name, id, changed);
  }

  public boolean strict() {
    return fields.strict();
  }

  public String tableName() {
    return "nodes_" + name;
  }

  public List<Violation> validate(ObjectNode data, Fields.IdTypes ids) {
    return fields.validate(data, "data", ids);
  }

  public ObjectNode withDefaults(ObjectNode stored) {
    return fields.withDefaults(stored);
  }
}
