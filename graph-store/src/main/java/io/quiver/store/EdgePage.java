package io.quiver.store;

import java.util.List;

/** One page of an edge list; {@code next} is null on the last page. */
public record EdgePage(List<Edge> edges, Cursor next) {
  public EdgePage {
    edges = List.copyOf(edges);
  }
}
