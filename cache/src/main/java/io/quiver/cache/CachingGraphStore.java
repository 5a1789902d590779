package io.quiver.cache;

import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.GuardedCache.Marker;
import io.quiver.cache.GuardedCache.Present;
import io.quiver.cache.GuardedCache.Slot;
import io.quiver.edge.EdgePage;
import io.quiver.edge.EdgeQuery;
import io.quiver.error.GraphException;
import io.quiver.id.NodeId;
import io.quiver.node.Node;
import io.quiver.node.NodeBatch;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ForwardingGraphStore;
import io.quiver.store.GraphStore;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.apache.curator.framework.CuratorFramework;

/**
 * A {@link GraphStore} that answers most reads from memory.
 *
 * <h2>Nodes</h2>
 * Write-through: after a node write commits, this server keeps the new version; other servers
 * are told to drop theirs. Misses are filled from MySQL, one read per key however many callers
 * miss at once, and a fill never puts an older version over a newer one ({@link GuardedCache}).
 * A node found missing is remembered as missing for a moment; a deleted node leaves no copy.
 *
 * <h2>Edge lists</h2>
 * Per (from, edge type), a window of the newest {@code edgeWindow} edges and the list's count,
 * filled together. Pages inside the window come from memory in either order when the window is
 * the whole list, newest-first otherwise; anything else goes to MySQL. Every committed change to
 * a list, from a client write, the inverse applier, a cascade or a repair, on any server, drops
 * the window here and on every peer.
 */
public final class CachingGraphStore extends ForwardingGraphStore {
  private record WindowKey(NodeId from, String edgeType) {}

  private final CacheSettings settings;
  private final GuardedCache<NodeId, Node> nodes;
  private final GuardedCache<WindowKey, EdgeWindow> windows;
  private final Map<NodeId, Future<Node>> nodeLoads = new ConcurrentHashMap<>();
  private final Map<WindowKey, Future<EdgeWindow>> windowLoads = new ConcurrentHashMap<>();
  private final CachePeers peers;
  private final SchemaSource schemas;
  private volatile long schemaVersion = -1;

  private CachingGraphStore(Vertx vertx, GraphStore store, SchemaSource schemas, CuratorFramework coordination,
      CacheSettings settings, Ticker ticker) {
    super(store);
    this.schemas = schemas;
    this.settings = settings;
    this.nodes = new GuardedCache<>(settings.nodeMaxBytes(), CachingGraphStore::weight,
        (candidate, cached) -> candidate.version() > cached.version(), settings.valueTtl(),
        CacheSettings.ABSENT_TTL, CacheSettings.INVALIDATED_TTL, ticker);
    this.windows = new GuardedCache<>(settings.edgeMaxBytes(), EdgeWindow::weight, (candidate, cached) -> true,
        settings.valueTtl(), CacheSettings.ABSENT_TTL, CacheSettings.INVALIDATED_TTL, ticker);
    this.peers = coordination == null ? null : new CachePeers(vertx, coordination, settings.peersPath(),
        settings.advertiseHost(), new CachePeers.Receiver() {
          @Override
          public void nodeChanged(NodeId id) {
            nodes.invalidate(id);
          }

          @Override
          public void edgesChanged(NodeId from, String edgeType) {
            windows.invalidate(new WindowKey(from, edgeType));
          }
        });
    delegate.onEdgeListChanged(this::edgesChanged);
  }

  /**
   * Caches in front of {@code store}; with {@code coordination}, joins the other servers'
   * invalidations (blocks until listening: call at startup).
   */
  public static CachingGraphStore wrap(Vertx vertx, GraphStore store, SchemaSource schemas,
      CuratorFramework coordination, CacheSettings settings) {
    CachingGraphStore caching =
        new CachingGraphStore(vertx, store, schemas, coordination, settings, Ticker.systemTicker());
    if (caching.peers != null) {
      caching.peers.start();
    }
    return caching;
  }

  /** The node cache's and the edge-window cache's figures. */
  public List<CacheFigures> figures() {
    long sent = peers == null ? 0 : peers.sent();
    long received = peers == null ? 0 : peers.received();
    return List.of(nodes.figures("nodes", sent, received), windows.figures("edge_windows", sent, received));
  }

  /** How many other servers this one tells of its writes. */
  public int peerCount() {
    return peers == null ? 0 : peers.peerCount();
  }

  // ---- nodes ----

  /**
   * Cached nodes and edges carry the defaults of the schema they were read under; when the schema
   * changes, everything cached is forgotten (schema changes are rare; reads are not).
   */
  private void followSchema() {
    long version = schemas.current().version();
    if (version != schemaVersion) {
      synchronized (this) {
        if (version != schemaVersion) {
          nodes.clear();
          windows.clear();
          schemaVersion = version;
        }
      }
    }
  }

  @Override
  public Future<Node> getNode(NodeId id) {
    followSchema();
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
    followSchema();
    Map<NodeId, Node> found = new HashMap<>();
    List<NodeId> known = new ArrayList<>();
    List<NodeId> unknown = new ArrayList<>();
    for (NodeId id : ids) {
      Slot<Node> slot = nodes.lookup(id);
      if (slot instanceof Present<Node> present) {
        found.put(id, present.value());
        known.add(id);
      } else if (slot instanceof Marker<Node>) {
        known.add(id);
      } else if (!unknown.contains(id)) {
        unknown.add(id);
      }
    }
    if (unknown.isEmpty()) {
      return Future.succeededFuture(assemble(ids, found));
    }
    long begun = nodes.begin();
    return delegate.getNodes(unknown).map(batch -> {
      batch.nodes().forEach(node -> {
        nodes.fill(node.id(), begun, node);
        found.put(node.id(), node);
      });
      batch.missing().forEach(id -> nodes.fillAbsent(id, begun));
      return assemble(ids, found);
    });
  }

  private static NodeBatch assemble(List<NodeId> ids, Map<NodeId, Node> found) {
    List<Node> present = new ArrayList<>();
    List<NodeId> missing = new ArrayList<>();
    for (NodeId id : ids) {
      Node node = found.get(id);
      if (node != null) {
        present.add(node);
      } else {
        missing.add(id);
      }
    }
    return new NodeBatch(present, missing);
  }

  @Override
  public Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith) {
    return delegate.createNode(type, data, colocateWith).onSuccess(node -> nodes.write(node.id(), node));
  }

  @Override
  public Future<Node> updateNode(NodeId id, ObjectNode patch, long expectedVersion) {
    return delegate.updateNode(id, patch, expectedVersion).onSuccess(this::nodeWritten);
  }

  @Override
  public Future<Node> replaceNode(NodeId id, ObjectNode data, long expectedVersion) {
    return delegate.replaceNode(id, data, expectedVersion).onSuccess(this::nodeWritten);
  }

  @Override
  public Future<Void> deleteNode(NodeId id, Cascade cascade) {
    return delegate.deleteNode(id, cascade).onSuccess(done -> {
      nodes.writeAbsent(id);
      if (peers != null) {
        peers.nodeChanged(id);
      }
    });
  }

  private void nodeWritten(Node node) {
    nodes.write(node.id(), node);
    if (peers != null) {
      peers.nodeChanged(node.id());
    }
  }

  // ---- edges ----

  @Override
  public Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query) {
    followSchema();
    WindowKey key = new WindowKey(from, type);
    return window(key).compose(window -> window.page(query)
        .map(Future::succeededFuture)
        .orElseGet(() -> delegate.getEdges(from, type, query)));
  }

  @Override
  public Future<Long> countEdges(NodeId from, String type) {
    followSchema();
    return window(new WindowKey(from, type)).map(EdgeWindow::count);
  }

  private Future<EdgeWindow> window(WindowKey key) {
    Slot<EdgeWindow> slot = windows.lookup(key);
    if (slot instanceof Present<EdgeWindow> present) {
      return Future.succeededFuture(present.value());
    }
    return singleFlight(windowLoads, key, () -> {
      long begun = windows.begin();
      Future<EdgePage> newest = delegate.getEdges(key.from(), key.edgeType(), EdgeQuery.firstPage(settings.edgeWindow()));
      Future<Long> count = delegate.countEdges(key.from(), key.edgeType());
      return Future.all(newest, count)
          .map(both -> new EdgeWindow(newest.result().edges(), newest.result().next() == null, count.result()))
          .onSuccess(window -> windows.fill(key, begun, window));
    });
  }

  /** Called after every committed change to an edge list made in this process. */
  private void edgesChanged(NodeId from, String edgeType) {
    windows.invalidate(new WindowKey(from, edgeType));
    if (peers != null) {
      peers.edgesChanged(from, edgeType);
    }
  }

  @Override
  public Future<Void> close() {
    if (peers != null) {
      peers.close();
    }
    return delegate.close();
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
