package io.quiver.edge;

import io.quiver.id.NodeId;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Announces, after commit, that the edge list of (from, edge type) changed — whoever wrote it: a
 * client's add or remove, the inverse applier, a cascade or a repair. Caches listen to drop their
 * copies.
 */
public final class EdgeChanges {
  private static final Logger log = LoggerFactory.getLogger(EdgeChanges.class);

  /** Told of every committed change to one edge list. */
  @FunctionalInterface
  public interface Listener {
    void changed(NodeId from, String edgeType);
  }

  private final List<Listener> listeners = new CopyOnWriteArrayList<>();

  public void listen(Listener listener) {
    listeners.add(listener);
  }

  public void changed(NodeId from, String edgeType) {
    for (Listener listener : listeners) {
      try {
        listener.changed(from, edgeType);
      } catch (RuntimeException e) {
        log.warn("an edge change listener failed", e);
      }
    }
  }
}
