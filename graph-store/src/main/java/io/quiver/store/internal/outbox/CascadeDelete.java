package io.quiver.store.internal.outbox;

import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.Edge;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.GraphStore;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The handler of {@link CascadeOp}: removes every edge from a deleted node, one page at a time,
 * each through the ordinary removal path of the store it is given — so each leaves its tombstone,
 * is announced on the change feed, and removes its inverse through the outbox too. Incoming
 * edges are reached through their inverses, which live with the deleted node; an incoming edge of
 * a type without an inverse cannot be found (there is no index by TO node) and stays until
 * hydrated reads report its target missing.
 */
public final class CascadeDelete implements OutboxHandler<CascadeOp> {
  private static final int PAGE = 200;

  private final GraphStore edges;
  private final SchemaSource schemas;

  /** @param edges the store whose removal path to use (the background pools' store) */
  public CascadeDelete(GraphStore edges, SchemaSource schemas) {
    this.edges = edges;
    this.schemas = schemas;
  }

  @Override
  public Future<Void> apply(CascadeOp op) {
    Schema schema = schemas.current();
    NodeType type = schema.nodeType(op.node().type()).orElse(null);
    if (type == null) {
      return Future.succeededFuture();
    }
    Future<Void> done = Future.succeededFuture();
    for (EdgeType edgeType : schema.edgeTypes().values()) {
      if (edgeType.from().equals(type.name())) {
        done = done.compose(previous -> removeAll(op.node(), edgeType.name()));
      }
    }
    return done;
  }

  private Future<Void> removeAll(NodeId node, String edgeType) {
    return edges.getEdges(node, edgeType, EdgeQuery.firstPage(PAGE)).compose(page -> removePage(node, edgeType, page));
  }

  private Future<Void> removePage(NodeId node, String edgeType, EdgePage page) {
    if (page.edges().isEmpty()) {
      return Future.succeededFuture();
    }
    List<Future<?>> removals = new ArrayList<>();
    for (Edge edge : page.edges()) {
      removals.add(edges.removeEdge(node, edgeType, edge.to()));
    }
    return Future.all(removals).compose(removed -> removeAll(node, edgeType));
  }
}
