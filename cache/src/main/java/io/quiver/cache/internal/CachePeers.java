package io.quiver.cache.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.CacheSettings;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.cache.ChildData;
import org.apache.curator.framework.recipes.cache.CuratorCache;
import org.apache.curator.framework.recipes.cache.CuratorCacheListener;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.curator.framework.state.ConnectionState;
import org.apache.zookeeper.CreateMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The other servers' caches, and how this one tells them what changed.
 *
 * <p>Each server registers {@code host:port} of a UDP socket as an ephemeral znode under the
 * peers path (re-created by Curator after a session loss) and watches the others'. After a write
 * commits, its server sends every peer one datagram naming what changed: {@code N <id>} for a
 * node, {@code E <from> <edgeType>} for an edge list, each behind its sender's id and number. A
 * datagram costs microseconds and arrives in well under a millisecond on a LAN.
 *
 * <h2>When the channel fails</h2>
 * A datagram can be lost, and a server that loses its ZooKeeper session is dropped from its peers'
 * lists: either way a change goes unannounced, and a cache would serve the old value until its TTL
 * (minutes). So staleness is bounded by {@link CacheSettings#staleBound()} and detected rather
 * than waited out:
 * <ul>
 *   <li>every datagram carries its sender's id and number, and each sender sends a heartbeat with
 *       its last number four times per bound; a receiver that sees a gap, or a peer first heard
 *       mid-stream, is told that anything may have changed ({@link PeerSequences});</li>
 *   <li>a registered peer silent for the bound may be writing without knowing of this server: the
 *       receiver is told so once per bound while it stays silent;</li>
 *   <li>a server whose ZooKeeper connection is suspended or lost for the bound stops being
 *       {@link #trusted()}, since its peers may have dropped it; when it rejoins it is told that
 *       anything may have changed, and is trusted again.</li>
 * </ul>
 * The values' TTL stays the last safety net beneath all of this.
 */
public final class CachePeers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CachePeers.class);
  /** How long joining waits to read the peers already registered. */
  static final Duration INITIAL_PEERS_TIMEOUT = Duration.ofSeconds(5);

  /** What a peer said changed. */
  public interface Receiver {
    void nodeChanged(NodeId id);

    void edgesChanged(NodeId from, String edgeType);

    /** Something may have changed unannounced: a gap, a silent peer, a rejoin after a partition. */
    void anythingChanged(String why);
  }

  private final Vertx vertx;
  private final CuratorFramework curator;
  private final String path;
  private final String advertiseHost;
  private final Receiver receiver;
  private final String id = UUID.randomUUID().toString();
  private final Map<String, String[]> peers = new ConcurrentHashMap<>();
  private final AtomicLong numbered = new AtomicLong();
  private final PeerSequences sequences;
  private final Ticker ticker;
  private final long boundNanos;
  /** When the ZooKeeper connection was suspended or lost; -1 while connected. */
  private volatile long detachedAt = -1;
  private long timer = -1;
  private final LongAdder sent = new LongAdder();
  private final LongAdder received = new LongAdder();
  private final java.util.Set<Future<Void>> inFlight = ConcurrentHashMap.newKeySet();
  private DatagramSocket socket;
  private PersistentNode registration;
  private CuratorCache watch;

  public CachePeers(Vertx vertx, CuratorFramework curator, String path, String advertiseHost, Duration staleBound,
      Ticker ticker, Receiver receiver) {
    this.vertx = vertx;
    this.curator = curator;
    this.path = path;
    this.advertiseHost = advertiseHost;
    this.receiver = receiver;
    this.ticker = ticker;
    this.boundNanos = staleBound.toNanos();
    this.sequences = new PeerSequences(staleBound, ticker);
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
    curator.getConnectionStateListenable().addListener((client, state) -> connectionChanged(state));
    timer = vertx.setPeriodic(Math.max(25, Duration.ofNanos(boundNanos).toMillis() / 4), id -> tick());
    log.info("cache invalidations for peers at {}:{}", advertiseHost, port);
  }

  /**
   * Whether the cache may answer: false once this server has been cut from ZooKeeper for the
   * stale bound (its peers may have stopped telling it of their writes), true again when it rejoins.
   */
  public boolean trusted() {
    long detached = detachedAt;
    return detached < 0 || ticker.read() - detached < boundNanos;
  }

  private void connectionChanged(ConnectionState state) {
    if (state == ConnectionState.SUSPENDED || state == ConnectionState.LOST) {
      if (detachedAt < 0) {
        detachedAt = ticker.read();
        log.warn("cut from ZooKeeper: the cache stops answering in {} ms unless this server rejoins first",
            Duration.ofNanos(boundNanos).toMillis());
      }
    } else if (state.isConnected() && detachedAt >= 0) {
      // Peers may have dropped this server meanwhile: nothing held from before is known good.
      receiver.anythingChanged("this server rejoined ZooKeeper after "
          + Duration.ofNanos(ticker.read() - detachedAt).toMillis() + " ms away");
      detachedAt = -1;
    }
  }

  /** Four times per bound: a heartbeat to every peer, and the silences it has let pass. */
  private void tick() {
    send("H", numbered.get());
    for (String peer : sequences.silent()) {
      receiver.anythingChanged("peer " + peer + " has been silent for the stale bound");
    }
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

  private void broadcast(String change) {
    send(change, numbered.incrementAndGet());
  }

  /** {@code <sender> <number> <body>} to every peer. */
  private void send(String body, long number) {
    if (socket == null) {
      return;
    }
    Buffer datagram = Buffer.buffer(id + " " + number + " " + body, "UTF-8");
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
      if (parts.length < 3) {
        return;
      }
      String sender = parts[0];
      long number = Long.parseLong(parts[1]);
      String kind = parts[2];
      if (kind.equals("H") && parts.length == 3) {
        noticeGap(sender, number, sequences.heartbeat(sender, number));
        return;
      }
      boolean node = kind.equals("N") && parts.length == 4;
      if (!node && !(kind.equals("E") && parts.length == 5)) {
        return;
      }
      NodeId changed = new NodeId(Long.parseLong(parts[3]));
      received.increment();
      noticeGap(sender, number, sequences.change(sender, number));
      if (node) {
        receiver.nodeChanged(changed);
      } else {
        receiver.edgesChanged(changed, parts[4]);
      }
    } catch (IllegalArgumentException malformed) {
      log.debug("ignoring a malformed invalidation", malformed);
    }
  }

  private void noticeGap(String sender, long number, PeerSequences.Verdict verdict) {
    if (verdict == PeerSequences.Verdict.GAP) {
      receiver.anythingChanged("a gap in the invalidations of peer " + sender + " (at number " + number + ")");
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
      sequences.expect(peer);
      peers.put(peer, new String[] {address.substring(0, colon), address.substring(colon + 1)});
    }
  }

  private void unregister(ChildData child) {
    String peer = peerId(child);
    if (peer != null) {
      peers.remove(peer);
      sequences.forget(peer);
    }
  }

  private String peerId(ChildData child) {
    String prefix = path + "/";
    return child != null && child.getPath().startsWith(prefix) ? child.getPath().substring(prefix.length()) : null;
  }

  @Override
  public void close() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
    }
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
