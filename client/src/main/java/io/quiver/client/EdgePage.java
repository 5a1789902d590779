package io.quiver.client;

import java.util.List;

/**
 * One page of edges.
 *
 * @param next the cursor of the following page; null on the last
 * @param missing with {@code hydrate}, targets that no longer exist (their edges are left out)
 */
public record EdgePage(List<Edge> edges, String next, List<Long> missing) {
  public boolean hasNext() {
    return next != null;
  }
}
