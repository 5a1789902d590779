package io.quiver.store;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;
import java.util.Objects;

/**
 * What a node write requires of the node it finds, as TAO's write preconditions: a version
 * ({@code If-Match}), and values of top-level data fields (a compare-and-set: "set status to closed
 * if it is open"). Checked under the node's row lock, so the condition and the write are one step;
 * a node that fails it is not written, and the write fails VERSION_CONFLICT with the node as it is.
 *
 * @param version the version the node must be at, or {@link GraphStore#ANY_VERSION}
 * @param fields each field's value the node's data must hold (read with the type's defaults, as a
 *     reader sees it; JSON {@code null} for a field that must be absent or null); empty for none
 */
public record NodeCondition(long version, ObjectNode fields) {
  /** No condition: the write applies to whatever is there. */
  public static final NodeCondition NONE = new NodeCondition(GraphStore.ANY_VERSION, JsonNodeFactory.instance.objectNode());

  public NodeCondition {
    Objects.requireNonNull(fields, "fields");
    fields = fields.deepCopy();
  }

  /** The node must be at {@code version} ({@link GraphStore#ANY_VERSION}: any). */
  public static NodeCondition atVersion(long version) {
    return new NodeCondition(version, JsonNodeFactory.instance.objectNode());
  }

  /** The node's data must hold these fields' values. */
  public static NodeCondition fields(ObjectNode fields) {
    return new NodeCondition(GraphStore.ANY_VERSION, fields);
  }

  /**
   * The first field of {@code data} (read with defaults) that does not hold the value this condition
   * asks for, or null when every one does.
   */
  public String unmet(ObjectNode data) {
    for (Iterator<Map.Entry<String, JsonNode>> each = fields.fields(); each.hasNext(); ) {
      Map.Entry<String, JsonNode> field = each.next();
      JsonNode held = data.get(field.getKey());
      boolean matches = field.getValue().isNull() ? held == null || held.isNull() : field.getValue().equals(held);
      if (!matches) {
        return field.getKey();
      }
    }
    return null;
  }
}
