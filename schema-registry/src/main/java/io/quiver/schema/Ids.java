package io.quiver.schema;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Reads node IDs out of JSON values. IDs travel as decimal strings because they exceed 2^53,
 * the largest integer a JavaScript number holds exactly; integral numbers are accepted too.
 */
public final class Ids {
  private Ids() {}

  /** The ID held by the value, or -1 when it is not a non-negative 64-bit integer. */
  public static long parse(JsonNode value) {
    if (value == null) {
      return -1;
    }
    if (value.isTextual()) {
      return parse(value.textValue());
    }
    if (value.isIntegralNumber() && value.canConvertToLong()) {
      long id = value.longValue();
      return id >= 0 ? id : -1;
    }
    return -1;
  }

  /** The ID written as decimal digits, or -1 when the text is not one. */
  public static long parse(String text) {
    if (text == null || text.isEmpty() || text.length() > 19) {
      return -1;
    }
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException overflow) {
      return -1;
    }
  }
}
