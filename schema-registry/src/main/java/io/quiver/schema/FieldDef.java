package io.quiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.core.GraphException;
import java.util.Objects;

/**
 * One field of a node or edge type.
 *
 * @param type the JSON type of the value
 * @param required whether a write must supply the field (unless it has a default)
 * @param defaultValue served on read when the stored JSON lacks the field; null for none
 * @param nodeType for {@link FieldType#ID} fields, the node type the ID must have; else null
 * @param unique the field's {@link UniqueIndex} when no two nodes may hold one value; else null.
 *     Only string and integer fields of node types, and never with a default: every node without a
 *     value would read the same one
 */
public record FieldDef(FieldType type, boolean required, JsonNode defaultValue, String nodeType, UniqueIndex unique) {

  public FieldDef(FieldType type, boolean required, JsonNode defaultValue, String nodeType) {
    this(type, required, defaultValue, nodeType, null);
  }

  public FieldDef {
    Objects.requireNonNull(type, "type");
    if (defaultValue != null && defaultValue.isNull()) {
      defaultValue = null;
    }
    if (defaultValue != null && !type.accepts(defaultValue)) {
      throw GraphException.invalid(
          "default " + defaultValue + " is not a valid " + type.jsonName());
    }
    if (nodeType != null && type != FieldType.ID) {
      throw GraphException.invalid("only id fields may name a nodeType");
    }
    if (unique != null && !UniqueIndex.indexable(type)) {
      throw GraphException.invalid("only string and integer fields may be unique, not " + type.jsonName());
    }
    if (unique != null && defaultValue != null) {
      throw GraphException.invalid("a unique field cannot have a default: every node without a value would read it");
    }
    if (defaultValue != null) {
      defaultValue = defaultValue.deepCopy();
    }
  }

  /** This field with another index (null for none), all else kept. */
  public FieldDef withUnique(UniqueIndex index) {
    return new FieldDef(type, required, defaultValue, nodeType, index);
  }

  public static FieldDef of(FieldType type) {
    return new FieldDef(type, false, null, null);
  }

  public boolean hasDefault() {
    return defaultValue != null;
  }
}
