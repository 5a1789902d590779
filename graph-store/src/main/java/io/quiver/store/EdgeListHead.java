package io.quiver.store;

import java.util.List;
import java.util.Objects;

/**
 * The newest edges of one list, newest first, with the list's count and version as of the same
 * moment ({@link GraphStore#getEdgeListHead}).
 *
 * @param version how many committed changes the list has had ({@link GraphChange.EdgeChanged#listVersion()})
 */
public record EdgeListHead(List<Edge> edges, long count, long version) {
  public EdgeListHead {
    edges = List.copyOf(Objects.requireNonNull(edges, "edges"));
  }

  /** Whether {@code edges} is the whole list: as many as its count, read from the same snapshot. */
  public boolean complete() {
    return edges.size() == count;
  }
}
