package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.edge.Edge;
import io.quiver.edge.EdgePage;
import io.quiver.edge.EdgeQuery;
import io.quiver.id.NodeId;
import io.quiver.node.Node;
import io.quiver.node.NodeBatch;
import io.quiver.outbox.OutboxStats;
import io.quiver.outbox.RepairReport;
import io.quiver.shard.ShardResolver;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The graph operations over a fleet of sharded MySQL hosts. Callers never see a shard: an ID
 * says where its node lives, and edges live with their FROM node; inverse edges follow through
 * the outbox.
 *
 * <p>Every method returns a Future and never throws; failures are {@link
 * io.quiver.error.GraphException}s. Nothing here blocks the calling event loop.
 */
public interface GraphStore extends ShardResolver {

  /** Pass as the expected version to update whatever version is stored. */
  long ANY_VERSION = io.quiver.node.NodeStore.ANY_VERSION;

  static GraphStoreBuilder builder(Vertx vertx) {
    return new GraphStoreBuilder(vertx);
  }

  Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith);

  Future<Node> getNode(NodeId id);

  /** The nodes in request order, and the IDs not found; one query per shard. */
  Future<NodeBatch> getNodes(List<NodeId> ids);

  /** Applies a JSON merge patch; {@code expectedVersion} may be {@link #ANY_VERSION}. */
  Future<Node> updateNode(NodeId id, ObjectNode patch, long expectedVersion);

  Future<Node> replaceNode(NodeId id, ObjectNode data, long expectedVersion);

  /** What else a node's deletion removes. */
  enum Cascade {
    /** Only the node; its edges stay until removed. */
    NONE,
    /** Also every edge from it, and through their inverses the edges to it, asynchronously. */
    EDGES
  }

  Future<Void> deleteNode(NodeId id, Cascade cascade);

  default Future<Void> deleteNode(NodeId id) {
    return deleteNode(id, Cascade.NONE);
  }

  /** Adds or updates an edge; a null sequence or data keeps an existing edge's. */
  Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data, InverseWait wait);

  default Future<Edge> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data) {
    return addEdge(from, type, to, sequence, data, InverseWait.ASYNC).map(EdgeResult::edge);
  }

  Future<Edge> getEdge(NodeId from, String type, NodeId to);

  Future<EdgeResult> removeEdge(NodeId from, String type, NodeId to, InverseWait wait);

  default Future<Void> removeEdge(NodeId from, String type, NodeId to) {
    return removeEdge(from, type, to, InverseWait.ASYNC).mapEmpty();
  }

  Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query);

  Future<Long> countEdges(NodeId from, String type);

  /** Each host's name and whether it answered a trivial query. */
  Future<Map<String, Boolean>> checkHosts();

  /**
   * Calls the listener after every committed change to an edge list, whoever made it: this
   * process's client writes, its inverse applier, cascades and repairs.
   */
  void onEdgeListChanged(io.quiver.edge.EdgeChanges.Listener listener);

  /** Edge-list and count read statements issued since start. */
  long edgeReadQueries();

  /** Node read statements issued since start (one per getNode, one per shard of a getNodes). */
  long nodeReadQueries();

  /** Connections open in each host's pool. */
  Map<String, Integer> poolSizes();

  /** The outbox figures of each host whose outboxes this server drains. */
  Map<String, OutboxStats> outboxStats();

  /** Scans an edge type and its inverse, fixing every pair whose copies differ; reports progress as it goes. */
  Future<RepairReport> repair(String edgeType, Consumer<String> progress);

  Future<Void> close();
}
