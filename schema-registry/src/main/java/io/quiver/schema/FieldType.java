package io.quiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.core.GraphException;

/** The JSON types a field may declare. */
public enum FieldType {
  STRING,
  INTEGER,
  NUMBER,
  BOOLEAN,
  /** A node ID: a decimal string or a non-negative integral number. */
  ID,
  OBJECT,
  ARRAY,
  ANY;

  public String jsonName() {
    return Names.lowerCase(this);
  }

  public static FieldType fromJsonName(String name) {
    return Names.lowerCaseConstant(values(), name, "field type");
  }

  /** Whether a non-null JSON value has this type. JSON null is handled by the caller. */
  public boolean accepts(JsonNode value) {
    return switch (this) {
      case STRING -> value.isTextual();
      case INTEGER -> value.isIntegralNumber() || (value.isNumber() && isWhole(value));
      case NUMBER -> value.isNumber();
      case BOOLEAN -> value.isBoolean();
      case ID -> Ids.parse(value) >= 0;
      case OBJECT -> value.isObject();
      case ARRAY -> value.isArray();
      case ANY -> true;
    };
  }

  private static boolean isWhole(JsonNode value) {
    double d = value.doubleValue();
    return d == Math.rint(d) && !Double.isInfinite(d);
  }
}
