package io.quiver.outbox;

import io.quiver.edge.Edge;
import io.quiver.edge.EdgePage;
import io.quiver.edge.EdgeQuery;
import io.quiver.edge.EdgeStore;
import io.quiver.id.NodeId;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes every edge from a deleted node, one page at a time, each through the ordinary removal
 * path: so each leaves its tombstone and removes its inverse through the outbox too. Incoming
 * edges are reached through their inverses, which live with the deleted node; an incoming edge of
 * a type without an inverse cannot be found (there is no index by TO node) and stays until
 * hydrated reads report its target missing.
 */
final class CascadeDelete {
  private static final int PAGE = 200;

  private final EdgeStore edges;
  private final SchemaSource schemas;

  CascadeDelete(EdgeStore edges, SchemaSource schemas) {
    this.edges = edges;
    this.schemas = schemas;
  }

  Future<Void> run(NodeId node) {
    Schema schema = schemas.current();
    NodeType type = schema.nodeType(node.type()).orElse(null);
    if (type == null) {
      return Future.succeededFuture();
    }
    Future<Void> done = Future.succeededFuture();
    for (EdgeType edgeType : schema.edgeTypes().values()) {
      if (edgeType.from().equals(type.name())) {
        done = done.compose(previous -> removeAll(node, edgeType.name()));
      }
    }
    return done;
  }

  private Future<Void> removeAll(NodeId node, String edgeType) {
    return edges.list(node, edgeType, EdgeQuery.firstPage(PAGE)).compose(page -> removePage(node, edgeType, page));
  }

  private Future<Void> removePage(NodeId node, String edgeType, EdgePage page) {
    if (page.edges().isEmpty()) {
      return Future.succeededFuture();
    }
    List<Future<?>> removals = new ArrayList<>();
    for (Edge edge : page.edges()) {
      removals.add(edges.remove(node, edgeType, edge.to()));
    }
    return Future.all(removals).compose(removed -> removeAll(node, edgeType));
  }
}
