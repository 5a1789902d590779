package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Comparator;
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

  /** A list's order: the highest sequence first, then the highest target (as MySQL orders IDs, unsigned). */
  public static final Comparator<Edge> NEWEST_FIRST = (a, b) -> a.sequence() != b.sequence()
      ? Long.compare(b.sequence(), a.sequence()) : Long.compareUnsigned(b.to().value(), a.to().value());

  /** This edge's identity: its list and its target. */
  public EdgeId id() {
    return new EdgeId(from, type, to);
  }

  /** An active edge. */
  public Edge(NodeId from, String type, NodeId to, long sequence, ObjectNode data, Instant updatedAt) {
    this(from, type, to, sequence, data, updatedAt, EdgeState.ACTIVE);
  }
}
