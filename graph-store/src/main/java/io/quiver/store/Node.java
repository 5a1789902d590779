package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;

/**
 * A node as read: its data carries every field its type defines (stored value, else default).
 * The data tree is owned by this value and must not be modified.
 */
public record Node(NodeId id, String type, ObjectNode data, long version, Instant createdAt, Instant updatedAt) {
  public Node {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(data, "data");
  }
}
