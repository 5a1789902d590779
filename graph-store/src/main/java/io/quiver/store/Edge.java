package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Objects;

/**
 * An edge as read. Its data carries every field the edge type defines (stored value, else
 * default) and must not be modified. Lists and counts hold active edges only; a single edge read
 * may be archived.
 *
 * @param sequence the ordering key; by default the write time in microseconds
 * @param updatedAt when the edge was last written
 */
public record Edge(NodeId from, String type, NodeId to, long sequence, ObjectNode data, Instant updatedAt,
    EdgeState state) {
  public Edge {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(to, "to");
    Objects.requireNonNull(data, "data");
    Objects.requireNonNull(state, "state");
  }

  /** An active edge. */
  public Edge(NodeId from, String type, NodeId to, long sequence, ObjectNode data, Instant updatedAt) {
    this(from, type, to, sequence, data, updatedAt, EdgeState.ACTIVE);
  }
}
