package io.quiver.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.schema.Ids;
import io.quiver.store.BulkLine;
import io.quiver.store.NodeId;
import java.util.Set;

/**
 * Reads one line of a bulk import's NDJSON, strictly as every request body is read
 * ({@link JsonBodies}): {@code {"node": {"ref", "type", "data", "colocateWith"}}} or
 * {@code {"edge": {"from", "type", "to", "sequence", "data", "state"}}}. An end (or
 * {@code colocateWith}) is an existing node's ID — a number, or a string of digits — or a
 * reference of the import: 1 to 128 of letters, digits and {@code _ . : -}, not all digits.
 */
final class BulkLines {
  private static final Set<String> LINE = Set.of("node", "edge");
  private static final Set<String> NODE = Set.of("ref", "type", "data", "colocateWith");
  private static final Set<String> EDGE = Set.of("from", "type", "to", "sequence", "data", "state");

  private BulkLines() {}

  static BulkLine parse(long number, byte[] bytes) {
    ObjectNode line = Requests.object(JsonBodies.read(bytes), "a line", LINE);
    if (line.size() != 1) {
      throw GraphException.invalid("a line holds one 'node' or one 'edge'");
    }
    if (line.has("node")) {
      ObjectNode node = Requests.object(line.get("node"), "'node'", NODE);
      String ref = Requests.textMember(node, "ref");
      if (!BulkLine.Endpoint.isRef(ref)) {
        throw GraphException.invalid("'ref' must be 1 to 128 of letters, digits and _ . : - (not all digits), got '"
            + ref + "'");
      }
      return new BulkLine.NodeLine(number, ref, Requests.textMember(node, "type"), Requests.data(node, true),
          endpoint(node, "colocateWith", false));
    }
    ObjectNode edge = Requests.object(line.get("edge"), "'edge'", EDGE);
    return new BulkLine.EdgeLine(number, endpoint(edge, "from", true), Requests.textMember(edge, "type"), endpoint(edge, "to", true),
        Requests.longMember(edge, "sequence"), Requests.data(edge, false), Requests.stateMember(edge));
  }

  private static BulkLine.Endpoint endpoint(ObjectNode object, String member, boolean required) {
    JsonNode value = object.get(member);
    if (value == null || value.isNull()) {
      if (required) {
        throw GraphException.invalid("'" + member + "' is required");
      }
      return null;
    }
    if (value.isTextual() && BulkLine.Endpoint.isRef(value.textValue())) {
      return BulkLine.Endpoint.of(value.textValue());
    }
    NodeId id = NodeId.fromLong(Ids.parse(value)).orElseThrow(() -> GraphException.invalid(
        "'" + member + "' must be a node ID or a ref, got " + value));
    return BulkLine.Endpoint.of(id);
  }
}
