package io.quiver.store;

import java.util.List;
import java.util.Objects;

/**
 * A page of edges with each edge's target node: what {@link GraphQueries#hydratedEdges} answers.
 *
 * @param edges the page's edges whose target exists, in page order, each with its node
 * @param next where the next page starts; null on the last page (of the edge list, not of this
 *     page's survivors: an edge left out for a missing target still moves the cursor)
 * @param missing targets of the page's edges that no longer exist, in page order
 */
public record HydratedPage(List<Entry> edges, Cursor next, List<NodeId> missing) {
  public HydratedPage {
    edges = List.copyOf(edges);
    missing = List.copyOf(missing);
  }

  /** An edge and the node it points to. */
  public record Entry(Edge edge, Node node) {
    public Entry {
      Objects.requireNonNull(edge, "edge");
      Objects.requireNonNull(node, "node");
    }
  }
}
