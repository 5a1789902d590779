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
 */
public record FieldDef(FieldType type, boolean required, JsonNode defaultValue, String nodeType) {

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
    if (defaultValue != null) {
      defaultValue = defaultValue.deepCopy();
    }
  }

  public static FieldDef of(FieldType type) {
    return new FieldDef(type, false, null, null);
  }

  public boolean hasDefault() {
    return defaultValue != null;
  }
}
