package io.quiver.cache.internal;

import io.quiver.store.NodeId;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The other servers' caches, and how this one tells them what changed.
 *
 * <p>Each server registers {@code host:port} of a UDP socket as an ephemeral znode under the
 * peers path (re-created by Curator after a session loss) and watches the others'. After a write
 * commits, its server sends every peer one datagram naming what changed: {@code N <id>} for a
 * node, {@code E <from> <edgeType>} for an edge list. A datagram costs microseconds and arrives in
 * well under a millisecond on a LAN; one that is lost leaves a stale copy only until the values'
 * TTL, the safety net beneath this channel.
 */
public final class CachePeers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CachePeers.class);
  /** How long joining waits to read the peers already registered. */
  static final java.time.Duration INITIAL_PEERS_TIMEOUT = java.time.Duration.ofSeconds(5);

  /** What a peer said changed. */
  public interface Receiver {
    void nodeChanged(NodeId id);

    void edgesChanged(NodeId from, String edgeType);
  }

  private final Vertx vertx;
  private final CuratorFramework curator;
  private final String path;
  private final String advertiseHost;
  private final Receiver receiver;
  private final String id = UUID.randomUUID().toString();
  private final Map<String, String[]> peers = new ConcurrentHashMap<>();
  private final LongAdder sent = new LongAdder();
  private final LongAdder received = new LongAdder();
  private final java.util.Set<Future<Void>> inFlight = ConcurrentHashMap.newKeySet();
  private DatagramSocket socket;
  private PersistentNode registration;
  private CuratorCache watch;

  public CachePeers(Vertx vertx, CuratorFramework curator, String path, String advertiseHost, Receiver receiver) {
    this.vertx = vertx;
    this.curator = curator;
    this.path = path;
    this.advertiseHost = advertiseHost;
    this.receiver = receiver;
  }

  /** Listens, registers and starts watching; blocks until listening (startup only). */
  public void start() {
    socket = vertx.createDatagramSocket();
    socket.handler(packet -> receive(packet.data()));
    int port = socket.listen(0, "0.0.0.0").await().localAddress().port();
    registration = new PersistentNode(curator, CreateMode.EPHEMERAL, false, path + "/" + id,
        (advertiseHost + ":" + port).getBytes(StandardCharsets.UTF_8));
    registration.start();
    watch = CuratorCache.build(curator, path);
    java.util.concurrent.CountDownLatch initialized = new java.util.concurrent.CountDownLatch(1);
    watch.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> register(after))
        .forDeletes(this::unregister)
        .forInitialized(initialized::countDown)
        .build());
    watch.start();
    // A process that writes at once (a command-line repair) must know its peers before its first change.
    try {
      if (!initialized.await(INITIAL_PEERS_TIMEOUT.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS)) {
        log.warn("the cache peers under {} were not read within {}; going on without them", path,
            INITIAL_PEERS_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    log.info("cache invalidations for peers at {}:{}", advertiseHost, port);
  }

  public void nodeChanged(NodeId node) {
    broadcast("N " + node.value());
  }

  public void edgesChanged(NodeId from, String edgeType) {
    broadcast("E " + from.value() + " " + edgeType);
  }

  public long sent() {
    return sent.sum();
  }

  public long received() {
    return received.sum();
  }

  public int peerCount() {
    return peers.size();
  }

  private void broadcast(String message) {
    if (socket == null) {
      return;
    }
    Buffer datagram = Buffer.buffer(message, "UTF-8");
    for (String[] address : peers.values()) {
      sent.increment();
      Future<Void> sending = socket.send(datagram, Integer.parseInt(address[1]), address[0]);
      inFlight.add(sending);
      sending.onComplete(done -> {
        inFlight.remove(sending);
        if (done.failed()) {
          log.debug("invalidation to {}:{} failed", address[0], address[1], done.cause());
        }
      });
    }
  }

  private void receive(Buffer data) {
    String[] parts = data.toString(StandardCharsets.UTF_8).split(" ");
    try {
      if (parts.length == 2 && parts[0].equals("N")) {
        received.increment();
        receiver.nodeChanged(new NodeId(Long.parseLong(parts[1])));
      } else if (parts.length == 3 && parts[0].equals("E")) {
        received.increment();
        receiver.edgesChanged(new NodeId(Long.parseLong(parts[1])), parts[2]);
      }
    } catch (IllegalArgumentException malformed) {
      log.debug("ignoring a malformed invalidation", malformed);
    }
  }

  private void register(ChildData child) {
    String peer = peerId(child);
    if (peer == null || peer.equals(id) || child.getData() == null) {
      return;
    }
    String address = new String(child.getData(), StandardCharsets.UTF_8);
    int colon = address.lastIndexOf(':');
    if (colon > 0) {
      peers.put(peer, new String[] {address.substring(0, colon), address.substring(colon + 1)});
    }
  }

  private void unregister(ChildData child) {
    String peer = peerId(child);
    if (peer != null) {
      peers.remove(peer);
    }
  }

  private String peerId(ChildData child) {
    String prefix = path + "/";
    return child != null && child.getPath().startsWith(prefix) ? child.getPath().substring(prefix.length()) : null;
  }

  @Override
  public void close() {
    // Datagrams already handed to the socket leave before it closes (a tool exits right after its work).
    if (!inFlight.isEmpty() && !io.vertx.core.Context.isOnVertxThread()) {
      Future.join(java.util.List.copyOf(inFlight)).timeout(1, java.util.concurrent.TimeUnit.SECONDS)
          .otherwiseEmpty().await();
    }
    try {
      if (watch != null) {
        watch.close();
      }
      if (registration != null) {
        registration.close();
      }
    } catch (Exception e) {
      log.debug("closing the cache peer registration", e);
    }
    if (socket != null) {
      socket.close();
    }
  }
}
