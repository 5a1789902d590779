package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.vertx.core.Future;
import java.util.List;
import java.util.Set;

/**
 * A {@link GraphStore} that passes every call to another; a decorator overrides only what it
 * changes (the cache, for one).
 */
public abstract class ForwardingGraphStore implements GraphStore {
  protected final GraphStore delegate;

  protected ForwardingGraphStore(GraphStore delegate) {
    this.delegate = delegate;
  }

  @Override
  public Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith) {
    return delegate.createNode(type, data, colocateWith);
  }

  @Override
  public Future<Node> getNode(NodeId id) {
    return delegate.getNode(id);
  }

  @Override
  public Future<java.util.Optional<UniqueClaim>> uniqueClaim(String type, String field, String value) {
    return delegate.uniqueClaim(type, field, value);
  }

  @Override
  public Future<NodeBatch> getNodes(List<NodeId> ids) {
    return delegate.getNodes(ids);
  }

  @Override
  public Future<Node> updateNode(NodeId id, ObjectNode patch, NodeCondition condition) {
    return delegate.updateNode(id, patch, condition);
  }

  @Override
  public Future<Node> replaceNode(NodeId id, ObjectNode data, NodeCondition condition) {
    return delegate.replaceNode(id, data, condition);
  }

  @Override
  public Future<Void> deleteNode(NodeId id, Cascade cascade) {
    return delegate.deleteNode(id, cascade);
  }

  @Override
  public Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data,
      EdgeState state, InverseWait wait, EdgeCondition condition) {
    return delegate.addEdge(from, type, to, sequence, data, state, wait, condition);
  }

  @Override
  public Future<Edge> getEdge(NodeId from, String type, NodeId to) {
    return delegate.getEdge(from, type, to);
  }

  @Override
  public Future<EdgeResult> archiveEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return delegate.archiveEdge(from, type, to, wait);
  }

  @Override
  public Future<EdgeResult> restoreEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return delegate.restoreEdge(from, type, to, wait);
  }

  @Override
  public Future<Void> archiveEdgesOf(NodeId node) {
    return delegate.archiveEdgesOf(node);
  }

  @Override
  public Future<Void> restoreEdgesOf(NodeId node) {
    return delegate.restoreEdgesOf(node);
  }

  @Override
  public Future<EdgeResult> removeEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return delegate.removeEdge(from, type, to, wait);
  }

  @Override
  public Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query) {
    return delegate.getEdges(from, type, query);
  }

  @Override
  public Future<List<Edge>> getEdgesTo(NodeId from, String type, List<NodeId> to, Set<EdgeState> states) {
    return delegate.getEdgesTo(from, type, to, states);
  }

  @Override
  public Future<EdgeBatch> getEdgesBatch(List<EdgeId> ids) {
    return delegate.getEdgesBatch(ids);
  }

  @Override
  public Future<EdgeLookup> lookupEdges(List<EdgeId> ids, Set<EdgeListId> readWhole, int wholeUpTo) {
    return delegate.lookupEdges(ids, readWhole, wholeUpTo);
  }

  @Override
  public Future<List<NodeId>> getTargets(NodeId from, String type, NodeId after, int limit) {
    return delegate.getTargets(from, type, after, limit);
  }

  @Override
  public Future<Long> countEdges(NodeId from, String type) {
    return delegate.countEdges(from, type);
  }

  @Override
  public Future<EdgeListHead> getEdgeListHead(NodeId from, String type, int limit) {
    return delegate.getEdgeListHead(from, type, limit);
  }

  @Override
  public Future<AtomicRead> readAtomically(List<NodeId> nodes, List<AtomicRead.ListRead> lists) {
    return delegate.readAtomically(nodes, lists);
  }

  @Override
  public Future<Void> settle(ReadToken token) {
    return delegate.settle(token);
  }

  @Override
  public GraphStore fresh() {
    return delegate.fresh();
  }
}
