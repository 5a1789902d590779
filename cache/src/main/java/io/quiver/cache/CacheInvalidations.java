package io.quiver.cache;

import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.internal.CachePeers;
import io.quiver.store.ChangeFeed;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import io.vertx.core.Vertx;
import org.apache.curator.framework.CuratorFramework;

/**
 * The channel between servers' caches. Every process that writes joins it — a server with or
 * without a cache, a command-line repair — so that no committed change goes unannounced: it
 * subscribes to its backend's {@link ChangeFeed} and sends every change to every peer, and hands
 * what the peers send to a {@link Receiver} (a cache drops its copy; a tool ignores them).
 *
 * <p>Peers find each other as ephemeral znodes under {@link CacheSettings#peersPath()}; one UDP
 * datagram per change and peer ({@link CachePeers}). A lost datagram, a silent peer or a ZooKeeper
 * partition cannot leave a cache stale beyond {@link CacheSettings#staleBound()}: see
 * {@link CachePeers} for how they are detected, and {@link #trusted()}.
 */
public final class CacheInvalidations implements AutoCloseable {

  /** Told of a change another process committed. */
  @FunctionalInterface
  public interface Receiver {
    void invalidate(GraphChange change);

    /**
     * Anything may have changed unannounced — a datagram lost, a peer silent, this server cut from
     * ZooKeeper — so nothing held is known good; {@code why} says which.
     */
    default void invalidateAll(String why) {
    }

    /** For a process with nothing cached. */
    Receiver NONE = change -> { };
  }

  private final CachePeers peers;
  private final ChangeFeed.Subscription subscription;

  private CacheInvalidations(CachePeers peers, ChangeFeed changes) {
    this.peers = peers;
    this.subscription = changes.subscribe(this::announce);
  }

  /**
   * Joins the channel: listens, registers, learns the current peers, then starts announcing this
   * process's changes. Blocks until all that is done (call it at startup, off the event loop).
   */
  public static CacheInvalidations join(Vertx vertx, CuratorFramework curator, CacheSettings settings,
      ChangeFeed changes, Receiver receiver) {
    return join(vertx, curator, settings, changes, Ticker.systemTicker(), receiver);
  }

  /** As {@link #join(Vertx, CuratorFramework, CacheSettings, ChangeFeed, Receiver)}, timing silences by {@code ticker}. */
  public static CacheInvalidations join(Vertx vertx, CuratorFramework curator, CacheSettings settings,
      ChangeFeed changes, Ticker ticker, Receiver receiver) {
    CachePeers peers = new CachePeers(vertx, curator, settings.peersPath(), settings.advertiseHost(),
        settings.staleBound(), ticker, new CachePeers.Receiver() {
          @Override
          public void nodeChanged(NodeId id) {
            receiver.invalidate(new GraphChange.NodeInvalidated(id));
          }

          @Override
          public void edgesChanged(NodeId from, String edgeType) {
            receiver.invalidate(new GraphChange.EdgeListChanged(from, edgeType));
          }

          @Override
          public void anythingChanged(String why) {
            receiver.invalidateAll(why);
          }
        });
    peers.start();
    return new CacheInvalidations(peers, changes);
  }

  private void announce(GraphChange change) {
    if (change instanceof GraphChange.NodeChange node) {
      peers.nodeChanged(node.id());
    } else if (change instanceof GraphChange.ListChange list) {
      peers.edgesChanged(list.from(), list.edgeType());
    }
  }

  /**
   * Whether a cache may answer from memory: false while this process has been cut from ZooKeeper
   * for longer than the stale bound.
   */
  public boolean trusted() {
    return peers.trusted();
  }

  /** Changes announced to peers since start, one per change and peer (many travel in one datagram). */
  public long sent() {
    return peers.sent();
  }

  /** Changes heard from peers since start. */
  public long received() {
    return peers.received();
  }

  /** How many other processes this one tells of its changes. */
  public int peerCount() {
    return peers.peerCount();
  }

  /** Stops announcing, lets the datagrams already sent leave, and leaves the channel. */
  @Override
  public void close() {
    subscription.close();
    peers.close();
  }
}
