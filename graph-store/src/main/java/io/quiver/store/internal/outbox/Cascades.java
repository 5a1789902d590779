package io.quiver.store.internal.outbox;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.Edge;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * The handler of {@link CascadeOp}: carries a node's deletion, archiving or restoring over to
 * every edge from it, one page at a time, each edge through the ordinary single-edge path of the
 * store it is given — so each leaves its row as any write would, is announced on the change feed,
 * and takes its inverse copy along through the outbox. Incoming edges are reached through their
 * inverses, which live with the node; an incoming edge of a type without an inverse cannot be
 * found (there is no index by TO node) and is left as it is — after a deletion, until hydrated
 * reads report its target missing.
 *
 * <p>Each page is read again from the start: every edge handled leaves the state being paged
 * (active to archived, archived to active, either to removed), so the pass ends.
 */
public final class Cascades implements OutboxHandler<CascadeOp> {
  private static final int PAGE = 200;

  /** What is done to each edge of a page. */
  @FunctionalInterface
  private interface EdgeAction {
    Future<?> apply(GraphStore store, NodeId from, String type, NodeId to);
  }

  private static final EdgeAction REMOVE = (store, from, type, to) -> store.removeEdge(from, type, to);
  private static final EdgeAction ARCHIVE = (store, from, type, to) ->
      store.archiveEdge(from, type, to, InverseWait.ASYNC);
  private static final EdgeAction RESTORE = (store, from, type, to) ->
      store.restoreEdge(from, type, to, InverseWait.ASYNC);

  private final GraphStore edges;
  private final SchemaSource schemas;

  /** @param edges the store whose single-edge paths to use (the background pools' store) */
  public Cascades(GraphStore edges, SchemaSource schemas) {
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
        String name = edgeType.name();
        done = switch (op.kind()) {
          case CASCADE_DELETE -> done
              .compose(previous -> each(op.node(), name, EdgeState.ACTIVE, REMOVE))
              .compose(previous -> each(op.node(), name, EdgeState.ARCHIVED, REMOVE));
          case CASCADE_ARCHIVE -> done.compose(previous -> each(op.node(), name, EdgeState.ACTIVE, ARCHIVE));
          case CASCADE_RESTORE -> done.compose(previous -> each(op.node(), name, EdgeState.ARCHIVED, RESTORE));
          default -> throw new IllegalArgumentException(op.kind() + " is not a cascade");
        };
      }
    }
    return done;
  }

  /**
   * Applies {@code action} to every edge of {@code type} from {@code node} in {@code state}, a page
   * at a time, as many pages as there are ({@link Futures#repeat}: the stack stays flat).
   */
  private Future<Void> each(NodeId node, String type, EdgeState state, EdgeAction action) {
    return Futures.repeat(() -> edges.getEdges(node, type, EdgeQuery.firstPage(PAGE).in(state)).compose(page -> {
      if (page.edges().isEmpty()) {
        return Future.succeededFuture(false);
      }
      List<Future<Boolean>> applied = new ArrayList<>();
      for (Edge edge : page.edges()) {
        applied.add(action.apply(edges, node, type, edge.to()).map(true).recover(Cascades::notFound));
      }
      return Future.all(applied).compose(pageDone -> applied.stream().allMatch(Future::result)
          ? Future.succeededFuture(true) : nodeStillThere(node));
    }));
  }

  /**
   * An edge that is gone by the time its turn comes (removed meanwhile) is done with. So is every
   * edge of a node deleted while its archive or restore went on: an archive or restore of a gone
   * node's edge is NOT_FOUND, and the deletion's own cascade takes over.
   */
  private static Future<Boolean> notFound(Throwable failure) {
    return failure instanceof GraphException graph && graph.code() == GraphException.Code.NOT_FOUND
        ? Future.succeededFuture(false) : Future.failedFuture(failure);
  }

  private Future<Boolean> nodeStillThere(NodeId node) {
    return edges.getNode(node).map(true).recover(Cascades::notFound);
  }
}
