package io.quiver.cache;

import io.quiver.store.EdgeId;
import io.quiver.store.EdgeListId;
import io.quiver.store.EdgeLookup;
import io.quiver.store.ForwardingGraphStore;
import io.quiver.store.GraphStore;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.Set;

/**
 * The real store, except that the answer of a getNode or of a lookup of single edges can be held
 * back after MySQL has given it: so a test can make a slow read finish after a write,
 * deterministically.
 */
final class HeldReads extends ForwardingGraphStore {
  private volatile Promise<Void> gate;
  private volatile Promise<Void> answered;

  HeldReads(GraphStore store) {
    super(store);
  }

  /** From now on, getNode and lookupEdges answers wait for {@link #release()}. */
  void hold() {
    answered = Promise.promise();
    gate = Promise.promise();
  }

  /** Waits until the held read has its answer from MySQL: what it read is fixed from then on. */
  void awaitAnswered() {
    answered.future().await();
  }

  void release() {
    Promise<Void> held = gate;
    gate = null;
    held.complete();
  }

  @Override
  public Future<Node> getNode(NodeId id) {
    return held(delegate.getNode(id));
  }

  @Override
  public Future<EdgeLookup> lookupEdges(List<EdgeId> ids, Set<EdgeListId> readWhole, int wholeUpTo) {
    return held(delegate.lookupEdges(ids, readWhole, wholeUpTo));
  }

  private <T> Future<T> held(Future<T> read) {
    Promise<Void> held = gate;
    Promise<Void> reached = answered;
    return held == null ? read : read.andThen(done -> reached.tryComplete()).compose(value -> held.future().map(value));
  }
}
