package io.quiver.store.internal;

import io.quiver.store.ChangeFeed;
import io.quiver.store.GraphChange;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one {@link ChangeFeed} of a backend: every writer in it announces here, after commit. */
public final class Changes implements ChangeFeed {
  private static final Logger log = LoggerFactory.getLogger(Changes.class);

  private final List<Consumer<GraphChange>> listeners = new CopyOnWriteArrayList<>();

  @Override
  public Subscription subscribe(Consumer<GraphChange> listener) {
    // A wrapper of its own, so that subscribing one listener twice gives two removable subscriptions.
    Consumer<GraphChange> subscribed = listener::accept;
    listeners.add(subscribed);
    return () -> listeners.remove(subscribed);
  }

  /** Tells every listener; one that fails does not keep the others from hearing. */
  public void announce(GraphChange change) {
    for (Consumer<GraphChange> listener : listeners) {
      try {
        listener.accept(change);
      } catch (RuntimeException e) {
        log.warn("a change listener failed on {}", change, e);
      }
    }
  }
}
