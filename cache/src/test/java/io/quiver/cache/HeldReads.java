package io.quiver.cache;

import io.quiver.store.ForwardingGraphStore;
import io.quiver.store.GraphStore;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import io.vertx.core.Promise;

/**
 * The real store, except that the answer of a getNode can be held back after MySQL has given it:
 * so a test can make a slow read finish after a write, deterministically.
 */
final class HeldReads extends ForwardingGraphStore {
  private volatile Promise<Void> gate;
  private volatile Promise<Void> answered;

  HeldReads(GraphStore store) {
    super(store);
  }

  /** From now on, getNode answers wait for {@link #release()}. */
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
    Promise<Void> held = gate;
    Promise<Void> reached = answered;
    Future<Node> read = delegate.getNode(id);
    return held == null ? read : read.andThen(done -> reached.tryComplete()).compose(node -> held.future().map(node));
  }
}
