package io.quiver.cache;

import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.internal.Doorkeeper;
import io.quiver.cache.internal.EdgePoints;
import io.quiver.cache.internal.EdgeWindow;
import io.quiver.cache.internal.GuardedCache.Marker;
import io.quiver.cache.internal.GuardedCache.Present;
import io.quiver.cache.internal.GuardedCache.Slot;
import io.quiver.cache.internal.GuardedCache;
import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ChangeFeed;
import io.quiver.store.Edge;
import io.quiver.store.EdgeBatch;
import io.quiver.store.EdgeId;
import io.quiver.store.EdgeListId;
import io.quiver.store.EdgeLookup;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeState;
import io.quiver.store.ForwardingGraphStore;
import io.quiver.store.GraphChange;
import io.quiver.store.GraphStore;
import io.quiver.store.Node;
import io.quiver.store.NodeBatch;
import io.quiver.store.NodeId;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A {@link GraphStore} that answers most reads from memory. It overrides reads only: writes go
 * to the store beneath, and what they committed comes back through the backend's
 * {@link ChangeFeed}, the one place every writer of this process announces — client writes, the
 * inverse applier, cascades, repairs.
 *
 * <h2>Nodes</h2>
 * Write-through: a committed node write leaves its new version here (a deletion, an absent
 * marker); other servers are told to drop theirs ({@link CacheInvalidations}). Misses are filled
 * from MySQL, one read per key however many callers miss at once, and a fill never puts an older
 * version over a newer one ({@link GuardedCache}). A node found missing is remembered as missing
 * for a moment.
 *
 * <h2>Edge lists</h2>
 * Per (from, edge type), a window of the newest {@code edgeWindow} edges with the list's count
 * and version, filled by one statement ({@link GraphStore#getEdgeListHead}), and read deeper
 * when readers page past it (up to the page cap; {@link EdgeWindow#depthToAnswer}). Pages inside the
 * window come from memory in either order when the window is the whole list, newest-first
 * otherwise; so do counts; anything else goes to MySQL. A change committed through this process — a
 * client's write or the inverse applier's — is applied to the window in place
 * ({@link EdgeWindow#after}), as TAO updates an association list on write instead of dropping
 * it: the hottest lists, written most, stay cached. A change on another server drops the window.
 *
 * <h2>Single edges</h2>
 * TAO's {@code assoc_get}: a single edge, a multi-get by target in any state, a batch across
 * source nodes. Per (from, edge type), what is known of the targets asked about — each edge,
 * active or archived, or that there is none — at one version of the list ({@link EdgePoints}),
 * filled by one lookup per shard for whatever a window or the points do not know
 * ({@link GraphStore#lookupEdges}) — for lists asked about before lately; a list asked about
 * the first time is read plainly and nothing is kept ({@link Doorkeeper}) — changed in place by
 * this process's changes as windows are, dropped with the window by another server's. A list of
 * at most {@link #WHOLE_LIST} live edges is read whole by that lookup (one list's, or a batch's
 * across sources alike), so its points know every
 * target, present or absent: the "does A follow B?" read of a random pair is answered from
 * memory whenever A's list is held, which is what lets single edges hit as often as nodes. So
 * the second read of an edge far down a long list, or of a list never paged, is answered from
 * memory, and so is an edge just written.
 *
 * <h2>When invalidations may have failed</h2>
 * A peer's invalidation lost (a number still missing after a short grace for reordering), a
 * silent peer, or this server's rejoining ZooKeeper clears both caches; while this server is cut from ZooKeeper longer than
 * {@link CacheSettings#staleBound()}, reads go to MySQL ({@link CacheInvalidations}).
 *
 * <h2>Stale-tolerant reads</h2>
 * The view {@link #staleTolerant()} answers what memory holds exactly as this store does — memory
 * is as fresh as the primary, every change being written here or dropped — and reads what it does
 * not hold through the store beneath's stale-tolerant view, which may answer from a replica. Such
 * an answer is never kept: it may be older than a change this cache already saw and dropped, and
 * kept it would be served to every reader, not only to those that tolerate staleness. So no
 * replica's version ever replaces a newer one here, or fills a slot a primary read would have.
 *
 * <h2>Schema changes</h2>
 * Cached nodes and edges carry the defaults of the schema they were read under; when the schema's
 * version moves, what is cached of each node or edge type whose definition changed is forgotten
 * ({@link GuardedCache#clearGroup}: no scan), and every other type keeps its entries. The schema
 * held at construction is the starting point, so a cache does not clear itself at its first read.
 */
public final class CachingGraphStore extends ForwardingGraphStore implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CachingGraphStore.class);
  private final CacheSettings settings;
  private final GuardedCache<NodeId, Node> nodes;
  private final GuardedCache<EdgeListId, EdgeWindow> windows;
  private final GuardedCache<EdgeListId, EdgePoints> points;
  /**
   * The most live edges of a list read whole when single edges of it are filled
   * ({@link EdgePoints#whole()}): a social graph's lists are mostly far shorter, and reading a
   * few dozen rows of one index range costs MariaDB little more than reading one.
   */
  static final int WHOLE_LIST = 32;
  /** Which lists' single edges were asked about lately: only those are kept ({@link Doorkeeper}). */
  private final Doorkeeper asked = new Doorkeeper();
  private final Map<NodeId, Future<Node>> nodeLoads = new ConcurrentHashMap<>();
  private final Map<EdgeListId, Future<EdgeWindow>> windowLoads = new ConcurrentHashMap<>();
  private final SchemaSource schemas;
  private final ChangeFeed.Subscription subscription;
  private final CacheInvalidations peers;
  private final Supplier<ShardMap> shardMaps;
  /** The schema what is cached was read under; a newer one clears the types it changed. */
  private volatile Schema schema;
  /** This cache's stale-tolerant view ({@link StaleReads}). */
  private final GraphStore staleReads;

  private CachingGraphStore(Builder builder) {
    super(builder.store);
    this.schemas = builder.schemas;
    this.settings = builder.settings;
    this.nodes = new GuardedCache<>(settings.nodeMaxBytes(), CachingGraphStore::weight,
        (candidate, cached) -> candidate.version() > cached.version(), settings.valueTtl(),
        CacheSettings.ABSENT_TTL, CacheSettings.INVALIDATED_TTL, builder.ticker, NodeId::type);
    this.windows = new GuardedCache<>(settings.windowMaxBytes(), EdgeWindow::weight,
        (candidate, cached) -> candidate.version() >= cached.version(),
        settings.valueTtl(), CacheSettings.ABSENT_TTL, CacheSettings.INVALIDATED_TTL, builder.ticker, EdgeListId::type);
    this.points = new GuardedCache<>(settings.pointMaxBytes(), EdgePoints::weight,
        (candidate, cached) -> candidate.version() >= cached.version(),
        settings.valueTtl(), CacheSettings.ABSENT_TTL, CacheSettings.INVALIDATED_TTL, builder.ticker, EdgeListId::type);
    this.shardMaps = builder.shardMaps;
    this.schema = schemas.current();
    this.subscription = builder.changes.subscribe(this::committed);
    this.staleReads = new StaleReads(delegate.staleTolerant());
    Consumer<GraphChange> alsoTell = builder.alsoTell;
    this.peers = builder.coordination == null ? null
        : CacheInvalidations.join(builder.vertx, builder.coordination, settings, builder.changes, builder.ticker,
            new CacheInvalidations.Receiver() {
              @Override
              public void invalidate(GraphChange change) {
                dropped(change);
                alsoTell.accept(change);
              }

              @Override
              public void invalidateAll(String why) {
                log.info("cache cleared: {}", why);
                clear();
              }
            });
  }

  /** A cache over {@code store}, kept by the change feed of the backend {@code store} writes through. */
  public static Builder builder(GraphStore store, ChangeFeed changes, SchemaSource schemas) {
    return new Builder(store, changes, schemas);
  }

  /** Assembles a {@link CachingGraphStore}; settings default to {@link CacheSettings#defaults()}. */
  public static final class Builder {
    private final GraphStore store;
    private final ChangeFeed changes;
    private final SchemaSource schemas;
    private CacheSettings settings = CacheSettings.defaults();
    private Vertx vertx;
    private CuratorFramework coordination;
    private Ticker ticker = Ticker.systemTicker();
    private Supplier<ShardMap> shardMaps;
    private Consumer<GraphChange> alsoTell = change -> { };

    private Builder(GraphStore store, ChangeFeed changes, SchemaSource schemas) {
      this.store = Objects.requireNonNull(store, "store");
      this.changes = Objects.requireNonNull(changes, "changes");
      this.schemas = Objects.requireNonNull(schemas, "schemas");
    }

    public Builder settings(CacheSettings settings) {
      this.settings = Objects.requireNonNull(settings, "settings");
      return this;
    }

    /**
     * Joins the other servers' invalidations ({@link CacheInvalidations}); building then blocks
     * until listening (call it at startup).
     */
    public Builder invalidationsBetweenServers(Vertx vertx, CuratorFramework coordination) {
      return invalidationsBetweenServers(vertx, coordination, change -> { });
    }

    /**
     * As {@link #invalidationsBetweenServers(Vertx, CuratorFramework)}, also handing every change
     * the other servers announce to {@code alsoTell} (on the channel's thread; it must not block) —
     * the server wakes its outbox drainers by them ({@code GraphBackend.committedElsewhere}).
     */
    public Builder invalidationsBetweenServers(Vertx vertx, CuratorFramework coordination,
        Consumer<GraphChange> alsoTell) {
      this.vertx = Objects.requireNonNull(vertx, "vertx");
      this.coordination = Objects.requireNonNull(coordination, "coordination");
      this.alsoTell = Objects.requireNonNull(alsoTell, "alsoTell");
      return this;
    }

    /**
     * The shard map in force, so that a shard an operator took {@code offline} is not answered from
     * memory either. Without it, the cache answers whatever it holds.
     */
    public Builder shardMaps(Supplier<ShardMap> shardMaps) {
      this.shardMaps = Objects.requireNonNull(shardMaps, "shardMaps");
      return this;
    }

    /** The time source of every expiry; a test's own ticker makes time move without sleeping. */
    public Builder ticker(Ticker ticker) {
      this.ticker = Objects.requireNonNull(ticker, "ticker");
      return this;
    }

    public CachingGraphStore build() {
      return new CachingGraphStore(this);
    }
  }

  /**
   * The node cache's, the edge-window cache's and the single-edge cache's figures, in that order;
   * a single edge's read answered from a window counts as a hit of the single-edge cache.
   */
  public List<CacheFigures> figures() {
    long sent = peers == null ? 0 : peers.sent();
    long received = peers == null ? 0 : peers.received();
    return List.of(nodes.figures("nodes", sent, received), windows.figures("edge_windows", sent, received),
        points.figures("edge_points", sent, received));
  }

  /** How many other servers this one tells of its writes. */
  public int peerCount() {
    return peers == null ? 0 : peers.peerCount();
  }

  /**
   * Compares every node and edge window this cache holds with what {@code truth} (the store
   * beneath, uncached) reads now, and answers a line per difference: empty when the cache is
   * coherent. For tests and for operators' spot checks; it reads every cached key, so it is not
   * for the request path.
   */
  public Future<List<String>> differencesFrom(GraphStore truth) {
    followSchema();
    Map<NodeId, Node> heldNodes = nodes.values();
    List<Supplier<Future<List<String>>>> checks = new ArrayList<>();
    if (!heldNodes.isEmpty()) {
      checks.add(() -> truth.getNodes(List.copyOf(heldNodes.keySet())).map(batch -> nodeDifferences(heldNodes, batch)));
    }
    windows.values().forEach((key, window) -> checks.add(() -> windowDifferences(truth, key, window)));
    // Every single edge held, present or absent, in batches of as many as one read takes; and
    // every list held whole, read whole again.
    Map<EdgeId, Edge> heldEdges = new HashMap<>();
    points.values().forEach((key, held) -> {
      held.edges().forEach((to, edge) -> heldEdges.put(new EdgeId(key.from(), key.type(), to), edge));
      if (held.whole()) {
        checks.add(() -> wholeDifferences(truth, key, held));
      }
    });
    List<EdgeId> ids = List.copyOf(heldEdges.keySet());
    for (int from = 0; from < ids.size(); from += MAX_EDGE_BATCH) {
      List<EdgeId> batch = ids.subList(from, Math.min(ids.size(), from + MAX_EDGE_BATCH));
      checks.add(() -> pointDifferences(truth, batch, heldEdges));
    }
    // One check at a time: a cache holding thousands of lists must not flood the pools.
    List<String> differences = new ArrayList<>();
    java.util.Iterator<Supplier<Future<List<String>>>> next = checks.iterator();
    return Futures.repeat(() -> {
      if (!next.hasNext()) {
        return Future.succeededFuture(false);
      }
      return next.next().get().map(found -> {
        differences.addAll(found);
        return true;
      });
    }).map(done -> differences);
  }

  private static List<String> nodeDifferences(Map<NodeId, Node> held, NodeBatch stored) {
    List<String> differences = new ArrayList<>();
    Map<NodeId, Node> found = new HashMap<>();
    stored.nodes().forEach(node -> found.put(node.id(), node));
    held.forEach((id, node) -> {
      Node truth = found.get(id);
      if (!node.equals(truth)) {
        differences.add("node " + id + ": cached " + node + ", stored " + truth);
      }
    });
    return differences;
  }

  /** A window equals what MySQL holds read to the window's size (in-place changes may shrink it). */
  private Future<List<String>> windowDifferences(GraphStore truth, EdgeListId key, EdgeWindow held) {
    return truth.getEdgeListHead(key.from(), key.type(), held.edges().size())
        .map(head -> EdgeWindow.of(head, held.depth())).map(stored ->
        held.equals(stored) ? List.<String>of() : List.of("edge window " + key + ": cached " + held + ", stored " + stored));
  }

  /** A list held whole holds every live edge MySQL holds of it now, active and archived, and no other. */
  private static Future<List<String>> wholeDifferences(GraphStore truth, EdgeListId key, EdgePoints held) {
    Future<EdgePage> active = truth.getEdges(key.from(), key.type(), EdgeQuery.firstPage(EdgeQuery.MAX_LIMIT));
    Future<EdgePage> archived = truth.getEdges(key.from(), key.type(),
        EdgeQuery.firstPage(EdgeQuery.MAX_LIMIT).in(EdgeState.ARCHIVED));
    return Future.all(active, archived).map(both -> {
      Map<NodeId, Edge> stored = new HashMap<>();
      active.result().edges().forEach(edge -> stored.put(edge.to(), edge));
      archived.result().edges().forEach(edge -> stored.put(edge.to(), edge));
      return stored.equals(held.edges()) ? List.<String>of()
          : List.of("whole edge list " + key + ": cached " + held + ", stored " + stored.values());
    });
  }

  /** Every edge held, present or absent, equals what MySQL holds now (in-place changes move the version on). */
  private static Future<List<String>> pointDifferences(GraphStore truth, List<EdgeId> ids, Map<EdgeId, Edge> held) {
    return truth.getEdgesBatch(ids).map(stored -> {
      Map<EdgeId, Edge> found = new HashMap<>();
      stored.edges().forEach(edge -> found.put(edge.id(), edge));
      List<String> differences = new ArrayList<>();
      for (EdgeId id : ids) {
        if (!java.util.Objects.equals(held.get(id), found.get(id))) {
          differences.add("edge " + id + ": cached " + held.get(id) + ", stored " + found.get(id));
        }
      }
      return differences;
    });
  }

  // ---- what changed ----

  /** A change committed through this process: the new node kept, an edge applied to its window in place. */
  private void committed(GraphChange change) {
    // What is kept from here on carries the schema in force: follow it first, as reads do.
    followSchema();
    if (change instanceof GraphChange.NodeChanged node) {
      if (node.deleted()) {
        nodes.writeAbsent(node.id());
      } else {
        nodes.write(node.id(), node.node());
      }
    } else if (change instanceof GraphChange.NodeInvalidated node) {
      nodes.invalidate(node.id());
    } else if (change instanceof GraphChange.EdgeChanged edge) {
      windows.update(edge.list(), window -> window.after(edge, window.depth()).orElse(null));
      points.update(edge.list(), held -> held.after(edge).orElse(null), () -> EdgePoints.of(edge));
    } else if (change instanceof GraphChange.ListChange list) {
      windows.invalidate(list.list());
      points.invalidate(list.list());
    }
  }

  /** A change another server committed: whatever is held for it is dropped. */
  private void dropped(GraphChange change) {
    if (change instanceof GraphChange.NodeChange node) {
      nodes.invalidate(node.id());
    } else if (change instanceof GraphChange.ListChange list) {
      windows.invalidate(list.list());
      points.invalidate(list.list());
    }
  }

  /** Forgets everything held, and refuses every fill begun before now. */
  private void clear() {
    nodes.clear();
    windows.clear();
    points.clear();
  }

  /**
   * Whether this read may be answered from memory: not while the server has been cut from
   * ZooKeeper longer than the stale bound ({@link CacheInvalidations#trusted()}). Forgets
   * everything cached first when the schema's version has moved.
   */
  private boolean answerable(NodeId id) {
    followSchema();
    return (peers == null || peers.trusted()) && !offline(id.shard());
  }

  /** Every ID of a batch answerable ({@link #answerable(NodeId)}). */
  private boolean answerable(List<NodeId> ids) {
    for (NodeId id : ids) {
      if (!answerable(id)) {
        return false;
      }
    }
    return true;
  }

  /**
   * The one shard state the cache obeys: an operator's {@code offline} means nothing answers, the
   * cache included, so such a read goes to the store, which refuses it. A host that is down is
   * another matter: what is cached keeps being answered through the outage (TAO's cache in front
   * of a failed database), and only misses are refused.
   */
  private boolean offline(int shard) {
    if (shardMaps == null) {
      return false;
    }
    // Every cached read asks: a map that overrides no shard's state (the usual case) answers without a lookup.
    ShardMap map = shardMaps.get();
    return !map.states().isEmpty() && !map.stateOf(shard).readable();
  }

  /**
   * When the schema's version moves, forgets what is cached of every node and edge type whose
   * definition it changed (or removed): their stored or rendered form may differ now. Types it
   * left alone keep what is cached. Schema changes are rare; reads are not, so a read pays one
   * comparison of versions.
   */
  private void followSchema() {
    Schema current = schemas.current();
    if (current.version() == schema.version()) {
      return;
    }
    synchronized (this) {
      Schema before = schema;
      if (current.version() == before.version()) {
        return;
      }
      changed(before.nodeTypes(), current.nodeTypes()).forEach(type -> nodes.clearGroup(type.id()));
      changed(before.edgeTypes(), current.edgeTypes()).forEach(type -> {
        windows.clearGroup(type.name());
        points.clearGroup(type.name());
      });
      schema = current;
    }
  }

  /**
   * The definitions {@code after} changes, removes or adds, as they were and as they are: an added
   * type may have been written (and its writes kept) under a version between the two.
   */
  private static <T> List<T> changed(Map<String, T> before, Map<String, T> after) {
    List<T> changed = new ArrayList<>();
    before.forEach((name, type) -> {
      if (!type.equals(after.get(name))) {
        changed.add(type);
      }
    });
    after.forEach((name, type) -> {
      if (!type.equals(before.get(name))) {
        changed.add(type);
      }
    });
    return changed;
  }

  // ---- nodes ----

  @Override
  public Future<Node> getNode(NodeId id) {
    if (!answerable(id)) {
      return delegate.getNode(id);
    }
    Slot<Node> slot = nodes.lookup(id);
    if (slot instanceof Present<Node> present) {
      return Future.succeededFuture(present.value());
    }
    if (slot instanceof Marker<Node>) {
      return Future.failedFuture(GraphException.notFound("no node " + id));
    }
    return loadNode(id);
  }

  /** One database read per missing node, however many callers wait for it. */
  private Future<Node> loadNode(NodeId id) {
    return singleFlight(nodeLoads, id, () -> {
      long begun = nodes.begin();
      return delegate.getNode(id)
          .onSuccess(node -> nodes.fill(id, begun, node))
          .onFailure(failure -> {
            if (failure instanceof GraphException graph && graph.code() == GraphException.Code.NOT_FOUND) {
              nodes.fillAbsent(id, begun);
            }
          });
    });
  }

  @Override
  public Future<NodeBatch> getNodes(List<NodeId> ids) {
    if (!answerable(ids)) {
      return delegate.getNodes(ids);
    }
    Map<NodeId, Node> found = new HashMap<>();
    List<NodeId> unknown = heldNodes(ids, found);
    if (unknown.isEmpty()) {
      return Future.succeededFuture(NodeBatch.of(ids, found));
    }
    long begun = nodes.begin();
    return delegate.getNodes(unknown).map(batch -> {
      batch.nodes().forEach(node -> {
        nodes.fill(node.id(), begun, node);
        found.put(node.id(), node);
      });
      batch.missing().forEach(id -> nodes.fillAbsent(id, begun));
      return NodeBatch.of(ids, found);
    });
  }


  /**
   * What memory holds of {@code ids}: each node held put in {@code found}; answered, each once, the
   * IDs it knows nothing of (one known absent is neither).
   */
  private List<NodeId> heldNodes(List<NodeId> ids, Map<NodeId, Node> found) {
    List<NodeId> unknown = new ArrayList<>();
    for (NodeId id : ids) {
      Slot<Node> slot = nodes.lookup(id);
      if (slot instanceof Present<Node> present) {
        found.put(id, present.value());
      } else if (!(slot instanceof Marker<Node>) && !unknown.contains(id)) {
        unknown.add(id);
      }
    }
    return unknown;
  }

  // ---- edges ----

  @Override
  public Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query) {
    if (!answerable(from) || query.state() != EdgeState.ACTIVE) {
      return delegate.getEdges(from, type, query);
    }
    EdgeListId key = new EdgeListId(from, type);
    return window(key).compose(window -> window.page(query).map(Future::succeededFuture).orElseGet(() -> {
      // Too deep for this window: read it deeper, once, if a window within the cap could answer.
      int depth = window.depthToAnswer(query);
      return depth == 0 ? delegate.getEdges(from, type, query) : read(key, depth).compose(deeper -> deeper.page(query)
          .map(Future::succeededFuture)
          .orElseGet(() -> delegate.getEdges(from, type, query)));
    }));
  }

  /**
   * From memory when it knows the edge — a window holding it, or the single edges known of its
   * list ({@link EdgePoints}) holding it or knowing it absent; else from MySQL, the answer, found
   * or not, kept.
   */
  @Override
  public Future<Edge> getEdge(NodeId from, String type, NodeId to) {
    EdgeId id = new EdgeId(from, type, to);
    // A hit answers without the batch's collections: the hot case of TAO's assoc_get.
    Optional<Known> known = answerable(from) ? known(id) : Optional.empty();
    if (known.isPresent()) {
      points.counted(true, 1);
      return single(id, known.get().edge());
    }
    points.counted(false, 1);
    Admitted admitted = admit(List.of(id));
    if (admitted.none()) {
      // Not asked about lately: the plain read, as an uncached server sends it; nothing kept.
      return delegate.getEdge(from, type, to);
    }
    return fill(List.of(id), admitted).map(found -> found.get(id)).compose(edge -> single(id, edge));
  }

  /** A single edge read's answer: the edge, or NOT_FOUND as the store words it. */
  private static Future<Edge> single(EdgeId id, Edge edge) {
    return edge != null ? Future.succeededFuture(edge)
        : Future.failedFuture(GraphException.notFound("no " + id.type() + " edge from " + id.from() + " to " + id.to()));
  }

  /**
   * Active edges only: from the window when it holds an edge to every target. Otherwise as single
   * edges ({@link #getEdgesBatch}): what memory knows, and one statement for the rest, whose
   * answers (present or absent) are kept.
   */
  @Override
  public Future<List<Edge>> getEdgesTo(NodeId from, String type, List<NodeId> to, Set<EdgeState> states) {
    if (to.isEmpty() || to.size() > MAX_EDGE_TARGETS || states.isEmpty() || !answerable(from)) {
      return delegate.getEdgesTo(from, type, to, states);
    }
    if (states.equals(ACTIVE_ONLY) && windows.peek(new EdgeListId(from, type)) instanceof Present<EdgeWindow> window) {
      Optional<List<Edge>> held = window.value().edgesTo(to);
      if (held.isPresent()) {
        points.counted(true, held.get().size());
        return Future.succeededFuture(held.get());
      }
    }
    return batch(to.stream().map(target -> new EdgeId(from, type, target)).toList())
        .map(batch -> batch.edges().stream().filter(edge -> states.contains(edge.state())).sorted(Edge.NEWEST_FIRST)
            .toList());
  }

  private static final Set<EdgeState> ACTIVE_ONLY = Set.of(EdgeState.ACTIVE);

  /** Every edge memory knows from memory; the rest from one lookup (a statement per shard), kept. */
  @Override
  public Future<EdgeBatch> getEdgesBatch(List<EdgeId> ids) {
    if (ids.isEmpty() || ids.size() > MAX_EDGE_BATCH) {
      return delegate.getEdgesBatch(ids);
    }
    return batch(ids);
  }

  private Future<EdgeBatch> batch(List<EdgeId> ids) {
    Map<EdgeId, Edge> found = new HashMap<>();
    List<EdgeId> unknown = heldEdges(ids, found);
    if (unknown.isEmpty()) {
      return Future.succeededFuture(EdgeBatch.of(ids, found));
    }
    Admitted admitted = admit(unknown);
    if (admitted.none()) {
      // Nothing asked about lately: answered by the plain read, not kept (Doorkeeper).
      return delegate.getEdgesBatch(unknown).map(read -> {
        read.edges().forEach(edge -> found.put(edge.id(), edge));
        return EdgeBatch.of(ids, found);
      });
    }
    return fill(unknown, admitted).map(read -> {
      found.putAll(read);
      return EdgeBatch.of(ids, found);
    });
  }

  /**
   * What memory knows of {@code ids}: each edge held put in {@code found}; answered, each once, the
   * IDs it knows nothing of (one known absent is neither). Every ID is counted a hit or a miss.
   */
  private List<EdgeId> heldEdges(List<EdgeId> ids, Map<EdgeId, Edge> found) {
    List<EdgeId> unknown = new ArrayList<>();
    for (EdgeId id : new LinkedHashSet<>(ids)) {
      Optional<Known> known = answerable(id.from()) ? known(id) : Optional.empty();
      points.counted(known.isPresent(), 1);
      if (known.isEmpty()) {
        unknown.add(id);
      } else if (known.get().edge() != null) {
        found.put(id, known.get().edge());
      }
    }
    return unknown;
  }

  /**
   * What of a read memory did not answer the doorkeeper lets in: each list asked about lately
   * (read whole when short, {@link GraphStore#lookupEdges}), and each pair asked about lately.
   * Each key is put to the doorkeeper once, which remembers it.
   */
  private record Admitted(Set<EdgeListId> lists, Set<EdgeId> pairs) {
    boolean none() {
      return lists.isEmpty() && pairs.isEmpty();
    }
  }

  private Admitted admit(List<EdgeId> unknown) {
    Set<EdgeListId> lists = new HashSet<>();
    Set<EdgeListId> considered = new HashSet<>();
    Set<EdgeId> pairs = new HashSet<>();
    for (EdgeId id : unknown) {
      if (considered.add(id.list()) && asked.seenBefore(id.list())) {
        lists.add(id.list());
      }
      if (asked.seenBefore(id)) {
        pairs.add(id);
      }
    }
    return new Admitted(lists, pairs);
  }

  /** Reads {@code unknown} with their lists' versions, keeps what was admitted, and answers what was found. */
  private Future<Map<EdgeId, Edge>> fill(List<EdgeId> unknown, Admitted admitted) {
    long begun = points.begin();
    return delegate.lookupEdges(unknown, admitted.lists(), WHOLE_LIST).map(lookup -> {
      remember(lookup, admitted, begun);
      return lookup.found();
    });
  }

  /** What memory says of one edge: it, or that there is none ({@code edge} null). */
  private record Known(Edge edge) {}

  /** What memory knows of the edge, if anything: a window holding it, or its list's points knowing it. */
  private Optional<Known> known(EdgeId id) {
    EdgeListId list = id.list();
    if (windows.peek(list) instanceof Present<EdgeWindow> window) {
      Optional<Edge> held = window.value().edgeTo(id.to());
      if (held.isPresent()) {
        return Optional.of(new Known(held.get()));
      }
    }
    if (points.peek(list) instanceof Present<EdgePoints> held && held.value().knows(id.to())) {
      return Optional.of(new Known(held.value().edgeTo(id.to()).orElse(null)));
    }
    return Optional.empty();
  }

  /**
   * Keeps what a lookup that began at {@code begun} read: each admitted list it read whole, whole;
   * of the others, each admitted pair, found or not.
   */
  private void remember(EdgeLookup lookup, Admitted admitted, long begun) {
    Map<EdgeListId, Map<NodeId, Edge>> read = new HashMap<>();
    for (EdgeListId list : lookup.whole()) {
      if (admitted.lists().contains(list)) {
        read.put(list, new java.util.LinkedHashMap<>());
      }
    }
    for (EdgeId id : admitted.pairs()) {
      if (!lookup.whole().contains(id.list())) {
        // Null where the lookup found none: known absent.
        read.computeIfAbsent(id.list(), list -> new java.util.LinkedHashMap<>()).put(id.to(), lookup.found().get(id));
      }
    }
    lookup.found().forEach((id, edge) -> {
      if (lookup.whole().contains(id.list()) && read.containsKey(id.list())) {
        read.get(id.list()).put(id.to(), edge);
      }
    });
    read.forEach((list, edges) -> {
      long version = lookup.versions().get(list);
      EdgePoints held = lookup.whole().contains(list) ? EdgePoints.whole(edges, version) : new EdgePoints(edges, version);
      points.fill(list, begun, held, EdgePoints::plus);
    });
  }

  /** From the window when it is the whole list (set operations then read it from memory); else from MySQL. */
  @Override
  public Future<List<NodeId>> getTargets(NodeId from, String type, NodeId after, int limit) {
    return heldOrRead(from, type,
        window -> limit >= 1 && limit <= EdgeQuery.MAX_LIMIT ? window.targetsAfter(after, limit) : Optional.empty(),
        () -> delegate.getTargets(from, type, after, limit));
  }

  /**
   * What the cached window of (from, type) can answer, if one is cached and it can; else what
   * {@code read} reads. A window is never filled for this read: it is answered from one already
   * there.
   */
  private <T> Future<T> heldOrRead(NodeId from, String type, Function<EdgeWindow, Optional<T>> held,
      Supplier<Future<T>> read) {
    if (answerable(from) && windows.lookup(new EdgeListId(from, type)) instanceof Present<EdgeWindow> present) {
      Optional<T> answer = held.apply(present.value());
      if (answer.isPresent()) {
        return Future.succeededFuture(answer.get());
      }
    }
    return read.get();
  }

  @Override
  public Future<Long> countEdges(NodeId from, String type) {
    if (!answerable(from)) {
      return delegate.countEdges(from, type);
    }
    return window(new EdgeListId(from, type)).map(EdgeWindow::count);
  }

  private Future<EdgeWindow> window(EdgeListId key) {
    Slot<EdgeWindow> slot = windows.lookup(key);
    if (slot instanceof Present<EdgeWindow> present) {
      return Future.succeededFuture(present.value());
    }
    return read(key, settings.edgeWindow());
  }

  /** Reads the list's window to {@code depth} edges and keeps it; one read per list at a time. */
  private Future<EdgeWindow> read(EdgeListId key, int depth) {
    return singleFlight(windowLoads, key, () -> {
      long begun = windows.begin();
      return delegate.getEdgeListHead(key.from(), key.type(), depth)
          .map(head -> EdgeWindow.of(head, depth))
          .onSuccess(window -> windows.fill(key, begun, window));
    });
  }

  @Override
  public GraphStore staleTolerant() {
    return staleReads;
  }

  /**
   * Reads that tolerate bounded staleness: what memory holds, as the cache answers it; the rest
   * from the store beneath's stale-tolerant view, which may ask a replica, and never kept. Writes
   * are the store's.
   */
  private final class StaleReads extends ForwardingGraphStore {
    StaleReads(GraphStore staleBeneath) {
      super(staleBeneath);
    }

    @Override
    public GraphStore staleTolerant() {
      return this;
    }

    @Override
    public Future<Node> getNode(NodeId id) {
      Slot<Node> slot = answerable(id) ? nodes.lookup(id) : null;
      if (slot instanceof Present<Node> present) {
        return Future.succeededFuture(present.value());
      }
      if (slot instanceof Marker<Node>) {
        return Future.failedFuture(GraphException.notFound("no node " + id));
      }
      return delegate.getNode(id);
    }

    @Override
    public Future<NodeBatch> getNodes(List<NodeId> ids) {
      if (!answerable(ids)) {
        return delegate.getNodes(ids);
      }
      Map<NodeId, Node> found = new HashMap<>();
      List<NodeId> unknown = heldNodes(ids, found);
      if (unknown.isEmpty()) {
        return Future.succeededFuture(NodeBatch.of(ids, found));
      }
      return delegate.getNodes(unknown).map(batch -> {
        batch.nodes().forEach(node -> found.put(node.id(), node));
        return NodeBatch.of(ids, found);
      });
    }

    @Override
    public Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query) {
      return query.state() != EdgeState.ACTIVE ? delegate.getEdges(from, type, query)
          : heldOrRead(from, type, window -> window.page(query), () -> delegate.getEdges(from, type, query));
    }

    @Override
    public Future<Edge> getEdge(NodeId from, String type, NodeId to) {
      Optional<Known> known = answerable(from) ? known(new EdgeId(from, type, to)) : Optional.empty();
      points.counted(known.isPresent(), 1);
      return known.isPresent() ? single(new EdgeId(from, type, to), known.get().edge()) : delegate.getEdge(from, type, to);
    }

    @Override
    public Future<List<Edge>> getEdgesTo(NodeId from, String type, List<NodeId> to, Set<EdgeState> states) {
      if (states.equals(ACTIVE_ONLY) && !to.isEmpty() && to.size() <= MAX_EDGE_TARGETS) {
        return heldOrRead(from, type, window -> window.edgesTo(to), () -> delegate.getEdgesTo(from, type, to, states));
      }
      return delegate.getEdgesTo(from, type, to, states);
    }

    @Override
    public Future<EdgeBatch> getEdgesBatch(List<EdgeId> ids) {
      if (ids.isEmpty() || ids.size() > MAX_EDGE_BATCH) {
        return delegate.getEdgesBatch(ids);
      }
      Map<EdgeId, Edge> found = new HashMap<>();
      List<EdgeId> unknown = heldEdges(ids, found);
      if (unknown.isEmpty()) {
        return Future.succeededFuture(EdgeBatch.of(ids, found));
      }
      return delegate.getEdgesBatch(unknown).map(read -> {
        read.edges().forEach(edge -> found.put(edge.id(), edge));
        return EdgeBatch.of(ids, found);
      });
    }

    @Override
    public Future<List<NodeId>> getTargets(NodeId from, String type, NodeId after, int limit) {
      return heldOrRead(from, type,
          window -> limit >= 1 && limit <= EdgeQuery.MAX_LIMIT ? window.targetsAfter(after, limit) : Optional.empty(),
          () -> delegate.getTargets(from, type, after, limit));
    }

    @Override
    public Future<Long> countEdges(NodeId from, String type) {
      return heldOrRead(from, type, window -> Optional.of(window.count()), () -> delegate.countEdges(from, type));
    }
  }

  /** Stops following the change feed and leaves the invalidation channel; the store beneath stays open. */
  @Override
  public void close() {
    subscription.close();
    if (peers != null) {
      peers.close();
    }
  }

  /**
   * Joins the load of {@code key} under way, or starts it. The load starts outside the map's
   * lock: it may complete at once (a failed lookup does), and its completion removes it.
   */
  private static <K, V> Future<V> singleFlight(Map<K, Future<V>> loads, K key, Supplier<Future<V>> load) {
    Future<V> running = loads.get(key);
    if (running != null) {
      return running;
    }
    Promise<V> promise = Promise.promise();
    running = loads.putIfAbsent(key, promise.future());
    if (running != null) {
      return running;
    }
    load.get().onComplete(done -> {
      loads.remove(key, promise.future());
      promise.handle(done);
    });
    return promise.future();
  }

  /** An estimate of a node's bytes in memory: its data as JSON text, twice over, and the record around it. */
  private static int weight(Node node) {
    return 256 + node.data().toString().length() * 2;
  }
}
