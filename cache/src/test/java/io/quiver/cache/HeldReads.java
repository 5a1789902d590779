package io.quiver.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.edge.Edge;
import io.quiver.edge.EdgeChanges;
import io.quiver.edge.EdgePage;
import io.quiver.edge.EdgeQuery;
import io.quiver.id.NodeId;
import io.quiver.node.Node;
import io.quiver.node.NodeBatch;
import io.quiver.outbox.OutboxStats;
import io.quiver.outbox.RepairReport;
import io.quiver.shard.ShardMap;
import io.quiver.store.EdgeResult;
import io.quiver.store.GraphStore;
import io.quiver.store.InverseWait;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * The real store, except that the answer of a getNode can be held back after MySQL has given it:
 * so a test can make a slow read finish after a write, deterministically.
 */
final class HeldReads implements GraphStore {
  private final GraphStore store;
  private volatile Promise<Void> gate;

  HeldReads(GraphStore store) {
    this.store = store;
  }

  /** From now on, getNode answers wait for {@link #release()}. */
  void hold() {
    gate = Promise.promise();
  }

  void release() {
    Promise<Void> held = gate;
    gate = null;
    held.complete();
  }

  @Override
  public Future<Node> getNode(NodeId id) {
    Promise<Void> held = gate;
    Future<Node> read = store.getNode(id);
    return held == null ? read : read.compose(node -> held.future().map(node));
  }

  @Override
  public Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith) {
    return store.createNode(type, data, colocateWith);
  }

  @Override
  public Future<NodeBatch> getNodes(List<NodeId> ids) {
    return store.getNodes(ids);
  }

  @Override
  public Future<Node> updateNode(NodeId id, ObjectNode patch, long expectedVersion) {
    return store.updateNode(id, patch, expectedVersion);
  }

  @Override
  public Future<Node> replaceNode(NodeId id, ObjectNode data, long expectedVersion) {
    return store.replaceNode(id, data, expectedVersion);
  }

  @Override
  public Future<Void> deleteNode(NodeId id, Cascade cascade) {
    return store.deleteNode(id, cascade);
  }

  @Override
  public Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data,
      InverseWait wait) {
    return store.addEdge(from, type, to, sequence, data, wait);
  }

  @Override
  public Future<Edge> getEdge(NodeId from, String type, NodeId to) {
    return store.getEdge(from, type, to);
  }

  @Override
  public Future<EdgeResult> removeEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return store.removeEdge(from, type, to, wait);
  }

  @Override
  public Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query) {
    return store.getEdges(from, type, query);
  }

  @Override
  public Future<Long> countEdges(NodeId from, String type) {
    return store.countEdges(from, type);
  }

  @Override
  public Future<Map<String, Boolean>> checkHosts() {
    return store.checkHosts();
  }

  @Override
  public void onEdgeListChanged(EdgeChanges.Listener listener) {
    store.onEdgeListChanged(listener);
  }

  @Override
  public long edgeReadQueries() {
    return store.edgeReadQueries();
  }

  @Override
  public long nodeReadQueries() {
    return store.nodeReadQueries();
  }

  @Override
  public Map<String, Integer> poolSizes() {
    return store.poolSizes();
  }

  @Override
  public Map<String, OutboxStats> outboxStats() {
    return store.outboxStats();
  }

  @Override
  public Future<RepairReport> repair(String edgeType, Consumer<String> progress) {
    return store.repair(edgeType, progress);
  }

  @Override
  public ShardMap shardMap() {
    return store.shardMap();
  }

  @Override
  public Future<Void> close() {
    return Future.succeededFuture();
  }
}
