package io.quiver.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The answer to a batch read of single edges ({@link GraphStore#getEdgesBatch}): the edges found,
 * active or archived, and the ones asked for that have none, each in request order.
 */
public record EdgeBatch(List<Edge> edges, List<EdgeId> missing) {
  public EdgeBatch {
    edges = List.copyOf(edges);
    missing = List.copyOf(missing);
  }

  /** The answer to a request for {@code ids}, from the edges found among them, in request order, each once. */
  public static EdgeBatch of(List<EdgeId> ids, Map<EdgeId, Edge> found) {
    List<Edge> edges = new ArrayList<>();
    List<EdgeId> missing = new ArrayList<>();
    for (EdgeId id : ids.stream().distinct().toList()) {
      Edge edge = found.get(id);
      if (edge != null) {
        edges.add(edge);
      } else {
        missing.add(id);
      }
    }
    return new EdgeBatch(edges, missing);
  }
}
