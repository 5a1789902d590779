package io.quiver.store.internal;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.Iterator;
import java.util.Map;

/** JSON merge patch (RFC 7396) of an object: null removes a member, objects merge, anything else replaces. */
public final class MergePatch {
  private MergePatch() {}

  /** A patched copy of {@code target}; neither argument is modified. */
  public static ObjectNode apply(ObjectNode target, ObjectNode patch) {
    ObjectNode result = target.deepCopy();
    merge(result, patch);
    return result;
  }

  private static void merge(ObjectNode target, ObjectNode patch) {
    for (Iterator<Map.Entry<String, JsonNode>> it = patch.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> member = it.next();
      JsonNode value = member.getValue();
      if (value.isNull()) {
        target.remove(member.getKey());
      } else if (value.isObject()) {
        JsonNode existing = target.get(member.getKey());
        ObjectNode merged = existing instanceof ObjectNode object ? object : target.objectNode();
        merge(merged, (ObjectNode) value);
        target.set(member.getKey(), merged);
      } else {
        target.set(member.getKey(), value.deepCopy());
      }
    }
  }
}
