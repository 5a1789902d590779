package io.quiver.cache.internal;

import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.Order;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The newest edges of one list, newest first, and the list's count.
 *
 * @param complete whether the window holds the whole list
 */
public record EdgeWindow(List<Edge> edges, boolean complete, long count) {

  /**
   * The page the query asks for, if the window can answer it exactly. A complete window answers
   * anything. Otherwise only newest-first pages can come from it, and only when the window holds
   * one edge more than the page past its start (to know whether another page follows): every edge
   * outside the window ranks below every edge in it.
   */
  public Optional<EdgePage> page(EdgeQuery query) {
    if (!complete && query.order() == Order.ASC) {
      return Optional.empty();
    }
    List<Edge> ordered = new ArrayList<>(edges);
    if (query.order() == Order.ASC) {
      java.util.Collections.reverse(ordered);
    }
    List<Edge> taken = new ArrayList<>(query.limit() + 1);
    int skipped = 0;
    for (Edge edge : ordered) {
      if (!withinBounds(edge, query) || !beyondCursor(edge, query)) {
        continue;
      }
      if (skipped < query.offset()) {
        skipped++;
        continue;
      }
      taken.add(edge);
      if (taken.size() == query.limit() + 1) {
        break;
      }
    }
    if (!complete && taken.size() <= query.limit()) {
      return Optional.empty();
    }
    if (taken.size() <= query.limit()) {
      return Optional.of(new EdgePage(taken, null));
    }
    List<Edge> page = taken.subList(0, query.limit());
    Edge last = page.get(page.size() - 1);
    return Optional.of(new EdgePage(page, new Cursor(last.sequence(), last.to().value())));
  }

  public int weight() {
    int weight = 64;
    for (Edge edge : edges) {
      weight += 96 + edge.data().size() * 48;
    }
    return weight;
  }

  private static boolean withinBounds(Edge edge, EdgeQuery query) {
    return (query.minSequence() == null || edge.sequence() >= query.minSequence())
        && (query.maxSequence() == null || edge.sequence() <= query.maxSequence());
  }

  private static boolean beyondCursor(Edge edge, EdgeQuery query) {
    Cursor after = query.after();
    if (after == null) {
      return true;
    }
    int compared = edge.sequence() != after.sequence()
        ? Long.compare(edge.sequence(), after.sequence())
        : Long.compare(edge.to().value(), after.to());
    return query.order() == Order.DESC ? compared < 0 : compared > 0;
  }
}
