package io.quiver.cache.internal;

import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.CacheSettings;
import io.quiver.store.NodeId;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import io.vertx.core.datagram.DatagramSocketOptions;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicBoolean;
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
 * commits, its server tells every peer what changed: {@code N <id>} for a node,
 * {@code E <from> <edgeType>} for an edge list. A datagram costs microseconds and arrives in well
 * under a millisecond on a LAN.
 *
 * <h2>One sender, in order</h2>
 * Writes commit on every event loop and on worker threads, and a datagram sent from each of them
 * straight away reaches the network in whatever order their tasks run. So changes are queued, and
 * one context — the socket's own — numbers and sends them: in order, and all that queued up while
 * it was busy in one datagram ({@link #MAX_DATAGRAM_BYTES}, under an Ethernet MTU). Under load that
 * turns one datagram per change per peer into a few per event-loop turn, and the receiver into a
 * reader of whole batches. The wire form is {@code <sender> <number>} then one change per line; a
 * datagram without changes is a heartbeat carrying the last number given. (A receiver from before
 * this form reads a batch as malformed, sees the next number as a gap and drops its cache: a
 * rolling upgrade costs hit ratio, never freshness.)
 *
 * <h2>When the channel fails</h2>
 * A datagram can be lost, and a server that loses its ZooKeeper session is dropped from its peers'
 * lists: either way a change goes unannounced, and a cache would serve the old value until its TTL
 * (minutes). So staleness is bounded by {@link CacheSettings#staleBound()} and detected rather
 * than waited out:
 * <ul>
 *   <li>every datagram carries its sender's id and number, and each sender sends a heartbeat with
 *       its last number four times per bound; a number still missing after {@link #REORDER_GRACE}
 *       (a datagram lost, not overtaken) or a peer first heard mid-stream tells the receiver that
 *       anything may have changed ({@link PeerSequences});</li>
 *   <li>a registered peer silent for the bound may be writing without knowing of this server: the
 *       receiver is told so once per bound while it stays silent;</li>
 *   <li>a server whose ZooKeeper connection is suspended or lost for the bound stops being
 *       {@link #trusted()}, since its peers may have dropped it; when it rejoins it is told that
 *       anything may have changed, and is trusted again.</li>
 * </ul>
 * A lost change is acted on within a heartbeat interval, the grace and another interval: three
 * quarters of the bound at most. The values' TTL stays the last safety net beneath all of this.
 */
public final class CachePeers implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CachePeers.class);
  /** How long joining waits to read the peers already registered. */
  static final Duration INITIAL_PEERS_TIMEOUT = Duration.ofSeconds(5);
  /** How long a skipped number may take to arrive before it counts as lost (at most a quarter of the bound). */
  static final Duration REORDER_GRACE = Duration.ofMillis(50);
  /**
   * The socket's receive buffer asked for: room for bursts of a few thousand datagrams while the
   * event loop is busy. Linux grants at most {@code net.core.rmem_max} (operations.md).
   */
  static final int RECEIVE_BUFFER_BYTES = 4 << 20;
  /** The most a batch of changes fills, header included: one Ethernet frame, never IP fragments. */
  static final int MAX_DATAGRAM_BYTES = 1400;

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
  /** Changes waiting for the sending context, and whether it has been asked to send them. */
  private final Queue<String> pending = new ConcurrentLinkedQueue<>();
  private final AtomicBoolean flushScheduled = new AtomicBoolean();
  /** The last number given; read and moved on the sending context only. */
  private long numbered;
  private final PeerSequences sequences;
  private final Ticker ticker;
  private final long boundNanos;
  private final Duration grace;
  /** When the ZooKeeper connection was suspended or lost; -1 while connected. */
  private volatile long detachedAt = -1;
  private long timer = -1;
  private final LongAdder sent = new LongAdder();
  private final LongAdder received = new LongAdder();
  private final Set<Future<Void>> inFlight = ConcurrentHashMap.newKeySet();
  /** The socket's context: it sends, receives and keeps time, so the numbers leave in order. */
  private Context context;
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
    this.grace = REORDER_GRACE.compareTo(staleBound.dividedBy(4)) < 0 ? REORDER_GRACE : staleBound.dividedBy(4);
    this.sequences = new PeerSequences(staleBound, grace, ticker);
  }

  /** Listens, registers and starts watching; blocks until listening (startup only). */
  public void start() {
    context = vertx.getOrCreateContext();
    int port = Future.<Integer>future(listening -> context.runOnContext(v -> {
      socket = vertx.createDatagramSocket(new DatagramSocketOptions().setReceiveBufferSize(RECEIVE_BUFFER_BYTES));
      socket.handler(packet -> receive(packet.data()));
      socket.listen(0, "0.0.0.0").map(bound -> bound.localAddress().port()).onComplete(listening);
    })).await();
    registration = new PersistentNode(curator, CreateMode.EPHEMERAL, false, path + "/" + id,
        (advertiseHost + ":" + port).getBytes(StandardCharsets.UTF_8));
    registration.start();
    watch = CuratorCache.build(curator, path);
    CountDownLatch initialized = new CountDownLatch(1);
    watch.listenable().addListener(CuratorCacheListener.builder()
        .forCreatesAndChanges((before, after) -> register(after))
        .forDeletes(this::unregister)
        .forInitialized(initialized::countDown)
        .build());
    watch.start();
    // A process that writes at once (a command-line repair) must know its peers before its first change.
    try {
      if (!initialized.await(INITIAL_PEERS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("the cache peers under {} were not read within {}; going on without them", path,
            INITIAL_PEERS_TIMEOUT);
      }
      // Registered before going on: the others announce to this process from then on, and a
      // start that fails right after closes no creation still in flight (Curator logged "Could
      // not delete node after close" at ERROR when it finished after the client closed).
      if (!registration.waitForInitialCreate(INITIAL_PEERS_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        log.warn("this process's cache peer registration under {} was not written within {}; going on", path,
            INITIAL_PEERS_TIMEOUT);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    curator.getConnectionStateListenable().addListener((client, state) -> connectionChanged(state));
    long interval = Math.max(25, Duration.ofNanos(boundNanos).toMillis() / 4);
    context.runOnContext(v -> timer = vertx.setPeriodic(interval, id -> tick()));
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

  /** Four times per bound, on the sending context: a heartbeat to every peer, and the losses and silences it has let pass. */
  private void tick() {
    flush();
    send(id + " " + numbered, 0);
    reportOverdue();
    for (String peer : sequences.silent()) {
      receiver.anythingChanged("peer " + peer + " has been silent for the stale bound");
    }
  }

  private void reportOverdue() {
    for (String peer : sequences.overdue()) {
      receiver.anythingChanged("invalidations of peer " + peer + " lost (a number still missing after "
          + grace.toMillis() + " ms)");
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

  /** Queues {@code change} for the sending context; whatever queues while it is busy leaves in one datagram. */
  private void broadcast(String change) {
    if (context == null) {
      return;
    }
    pending.add(change);
    if (flushScheduled.compareAndSet(false, true)) {
      context.runOnContext(v -> flush());
    }
  }

  /** On the sending context: every queued change, numbered, in datagrams of at most {@link #MAX_DATAGRAM_BYTES}. */
  private void flush() {
    flushScheduled.set(false);
    StringBuilder batch = new StringBuilder(MAX_DATAGRAM_BYTES);
    int changes = 0;
    for (String change = pending.poll(); change != null; change = pending.poll()) {
      if (changes > 0 && batch.length() + 1 + change.length() > MAX_DATAGRAM_BYTES) {
        send(batch.toString(), changes);
        batch.setLength(0);
        changes = 0;
      }
      if (changes == 0) {
        batch.append(id).append(' ').append(++numbered);
      }
      batch.append('\n').append(change);
      changes++;
    }
    if (changes > 0) {
      send(batch.toString(), changes);
    }
  }

  /** One datagram to every peer, carrying {@code changes} changes (none for a heartbeat). */
  private void send(String text, int changes) {
    if (socket == null) {
      return;
    }
    Buffer datagram = Buffer.buffer(text, "UTF-8");
    for (String[] address : peers.values()) {
      sent.add(changes);
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

  /** A datagram from a peer: {@code <sender> <number>}, then one change per line (none: a heartbeat). */
  private void receive(Buffer data) {
    String[] lines = data.toString(StandardCharsets.UTF_8).split("\n");
    String[] header = lines[0].split(" ");
    if (header.length != 2) {
      log.debug("ignoring a malformed invalidation");
      return;
    }
    String sender = header[0];
    long number;
    try {
      number = Long.parseLong(header[1]);
    } catch (NumberFormatException malformed) {
      log.debug("ignoring a malformed invalidation", malformed);
      return;
    }
    if (lines.length == 1) {
      noticeGap(sender, number, sequences.heartbeat(sender, number));
      reportOverdue();
      return;
    }
    noticeGap(sender, number, sequences.change(sender, number));
    for (int i = 1; i < lines.length; i++) {
      String[] parts = lines[i].split(" ");
      try {
        if (parts[0].equals("N") && parts.length == 2) {
          receiver.nodeChanged(new NodeId(Long.parseLong(parts[1])));
        } else if (parts[0].equals("E") && parts.length == 3) {
          receiver.edgesChanged(new NodeId(Long.parseLong(parts[1])), parts[2]);
        } else {
          throw new IllegalArgumentException("unknown change: " + lines[i]);
        }
        received.increment();
      } catch (IllegalArgumentException malformed) {
        // Numbered, so counted as heard: what it meant to drop must be dropped some other way.
        receiver.anythingChanged("a malformed invalidation from peer " + sender + ": " + malformed.getMessage());
      }
    }
    reportOverdue();
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
      peers.put(peer, new String[] {resolved(address.substring(0, colon)), address.substring(colon + 1)});
    }
  }

  /**
   * The peer's address once, here on Curator's thread, so that sending never waits on a name lookup
   * (one that finishes out of turn would send its datagram out of order). A name that does not
   * resolve now is kept, and looked up at each send.
   */
  private static String resolved(String host) {
    try {
      return InetAddress.getByName(host).getHostAddress();
    } catch (UnknownHostException e) {
      log.warn("cache peer host {} does not resolve now; sending to it by name", host);
      return host;
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
    if (context == null) {
      return;
    }
    // What is queued and in flight leaves before the socket closes (a tool exits right after its
    // work). Waited for by the calling thread's clock, not a Vert.x timer: Vert.x may be closing too.
    Promise<Void> closed = Promise.promise();
    context.runOnContext(v -> {
      if (timer >= 0) {
        vertx.cancelTimer(timer);
      }
      flush();
      Future.join(List.copyOf(inFlight))
          .eventually(() -> socket == null ? Future.succeededFuture() : socket.close())
          .onComplete(done -> closed.tryComplete());
    });
    if (!Context.isOnVertxThread()) {
      try {
        closed.future().toCompletionStage().toCompletableFuture().get(1, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      } catch (ExecutionException | TimeoutException e) {
        log.debug("the last invalidations did not leave within a second", e);
      }
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
  }
}
