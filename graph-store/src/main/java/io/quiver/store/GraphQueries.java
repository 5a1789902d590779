package io.quiver.store;

import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reads composed of graph operations, over any {@link GraphStore} — cached or not — so the HTTP
 * routes, the command line and any Java caller compose them the same way: the hydrated page,
 * TAO's application-level join of an edge list with its targets; and set operations over edge
 * lists, FlockDB's intersection, union and difference ({@link TargetMerge}).
 */
public final class GraphQueries {
  private final GraphStore store;

  private GraphQueries(GraphStore store) {
    this.store = Objects.requireNonNull(store, "store");
  }

  public static GraphQueries over(GraphStore store) {
    return new GraphQueries(store);
  }

  /**
   * A page of edges with their target nodes, fetched with one getNodes (one query per shard,
   * or none when the cache holds them). Edges whose target no longer exists are left out and the
   * targets listed as missing.
   */
  public Future<HydratedPage> hydratedEdges(NodeId from, String edgeType, EdgeQuery query) {
    return store.getEdges(from, edgeType, query).compose(this::hydrate);
  }

  /** A page of a set operation over edge lists, in ascending target ID order. */
  public Future<TargetPage> combine(TargetQuery query) {
    return TargetMerge.page(store, query);
  }

  /** How many targets a set operation's whole answer holds; reads every list to its end. */
  public Future<Long> countCombined(TargetQuery query) {
    return TargetMerge.count(store, query);
  }

  private Future<HydratedPage> hydrate(EdgePage page) {
    if (page.edges().isEmpty()) {
      return Future.succeededFuture(new HydratedPage(List.of(), page.next(), List.of()));
    }
    List<NodeId> targets = page.edges().stream().map(Edge::to).distinct().toList();
    return store.getNodes(targets).map(batch -> join(page, batch));
  }

  private static HydratedPage join(EdgePage page, NodeBatch targets) {
    Map<NodeId, Node> found = new HashMap<>();
    targets.nodes().forEach(node -> found.put(node.id(), node));
    List<HydratedPage.Entry> entries = new ArrayList<>();
    for (Edge edge : page.edges()) {
      Node target = found.get(edge.to());
      if (target != null) {
        entries.add(new HydratedPage.Entry(edge, target));
      }
    }
    return new HydratedPage(entries, page.next(), targets.missing());
  }
}
