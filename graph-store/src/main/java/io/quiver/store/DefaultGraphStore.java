package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.edge.Edge;
import io.quiver.edge.EdgePage;
import io.quiver.edge.EdgeQuery;
import io.quiver.edge.EdgeChanges;
import io.quiver.edge.EdgeStore;
import io.quiver.edge.EdgeWrite;
import io.quiver.id.NodeId;
import io.quiver.node.Node;
import io.quiver.node.NodeBatch;
import io.quiver.node.NodeStore;
import io.quiver.outbox.ApplierSettings;
import io.quiver.outbox.InverseApplier;
import io.quiver.outbox.InverseRepair;
import io.quiver.outbox.InverseWriter;
import io.quiver.outbox.Outbox;
import io.quiver.outbox.OutboxStats;
import io.quiver.outbox.RepairReport;
import io.quiver.schema.SchemaSource;
import io.quiver.shard.ShardMap;
import io.quiver.shard.ShardMapSource;
import io.quiver.sql.HostPools;
import io.quiver.sql.PoolSettings;
import io.quiver.sql.ShardClient;
import io.quiver.sql.ShardRouter;
import io.quiver.sql.SqlValues;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import org.apache.curator.framework.CuratorFramework;

final class DefaultGraphStore implements GraphStore {
  private final Vertx vertx;
  private final HostPools hostPools;
  private final HostPools backgroundPools;
  private final ShardRouter router;
  private final ShardRouter backgroundRouter;
  private final NodeStore nodes;
  private final EdgeStore edges;
  private final InverseApplier applier;
  private final InverseRepair repair;
  private final Clock clock;
  private final EdgeChanges edgeChanges = new EdgeChanges();
  /**
   * Admin jobs that await the reactive client batch by batch. Not Vert.x workers: Vert.x 5 refuses
   * {@code Future.await()} on its own threads.
   */
  private final ExecutorService adminJobs = Executors.newCachedThreadPool(runnable -> {
    Thread thread = new Thread(runnable, "quiver-admin-job");
    thread.setDaemon(true);
    return thread;
  });

  DefaultGraphStore(Vertx vertx, PoolSettings pools, ShardMapSource shardMaps, SchemaSource schemas,
      CuratorFramework curator, ApplierSettings applierSettings, Clock clock, String serverId) {
    ShardMap initial = Objects.requireNonNull(shardMaps.current(), "the shard map source holds no map yet");
    this.vertx = vertx;
    this.hostPools = new HostPools(vertx, pools);
    this.router = new ShardRouter(hostPools, initial);
    ShardClient client = new ShardClient(vertx);
    this.nodes = new NodeStore(router, client, schemas, clock);
    this.edges = new EdgeStore(router, client, schemas, nodes, Outbox.log(clock), edgeChanges, clock);
    // Background work runs on pools of its own, so a burst of it never takes a request's connection.
    this.backgroundPools = new HostPools(vertx, pools.forBackground());
    this.backgroundRouter = new ShardRouter(backgroundPools, initial);
    NodeStore backgroundNodes = new NodeStore(backgroundRouter, client, schemas, clock);
    EdgeStore backgroundEdges =
        new EdgeStore(backgroundRouter, client, schemas, backgroundNodes, Outbox.log(clock), edgeChanges, clock);
    InverseWriter writer = new InverseWriter(backgroundRouter, client, schemas, edgeChanges);
    this.repair = new InverseRepair(backgroundRouter, client, schemas, writer);
    this.applier = curator == null ? null
        : new InverseApplier(vertx, curator, backgroundRouter, schemas, writer, backgroundEdges, applierSettings, clock,
            serverId, PoolSettings.BACKGROUND_MAX_SIZE);
    this.clock = clock;
    shardMaps.onChange(this::follow);
    if (applier != null) {
      applier.follow(initial);
    }
  }

  private void follow(ShardMap map) {
    router.apply(map);
    backgroundRouter.apply(map);
    if (applier != null) {
      applier.follow(map);
    }
  }

  @Override
  public ShardMap shardMap() {
    return router.shardMap();
  }

  @Override
  public Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith) {
    return nodes.create(type, data, colocateWith);
  }

  @Override
  public Future<Node> getNode(NodeId id) {
    return nodes.get(id);
  }

  @Override
  public Future<NodeBatch> getNodes(List<NodeId> ids) {
    return nodes.getMany(ids);
  }

  @Override
  public Future<Node> updateNode(NodeId id, ObjectNode patch, long expectedVersion) {
    return nodes.update(id, patch, expectedVersion);
  }

  @Override
  public Future<Node> replaceNode(NodeId id, ObjectNode data, long expectedVersion) {
    return nodes.replace(id, data, expectedVersion);
  }

  @Override
  public Future<Void> deleteNode(NodeId id, Cascade cascade) {
    if (cascade == Cascade.NONE) {
      return nodes.delete(id, NodeStore.AlsoInTransaction.NOTHING);
    }
    return nodes.delete(id, (connection, route) ->
        Outbox.appendCascade(connection, route, id, SqlValues.nowMicros(clock)));
  }

  @Override
  public Future<EdgeResult> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data,
      InverseWait wait) {
    return edges.add(from, type, to, sequence, data).compose(write -> settle(write, wait));
  }

  @Override
  public Future<Edge> getEdge(NodeId from, String type, NodeId to) {
    return edges.get(from, type, to);
  }

  @Override
  public Future<EdgeResult> removeEdge(NodeId from, String type, NodeId to, InverseWait wait) {
    return edges.remove(from, type, to).compose(write -> settle(write, wait));
  }

  /** The forward write has committed: whatever happens next, the answer is a success. */
  private Future<EdgeResult> settle(EdgeWrite write, InverseWait wait) {
    if (write.inverse() == null) {
      return Future.succeededFuture(new EdgeResult(write.edge(), EdgeResult.Inverse.NONE));
    }
    if (wait == InverseWait.ASYNC || applier == null) {
      return Future.succeededFuture(new EdgeResult(write.edge(), EdgeResult.Inverse.PENDING));
    }
    return applier.applyNow(write.inverse()).map(applied ->
        new EdgeResult(write.edge(), applied ? EdgeResult.Inverse.APPLIED : EdgeResult.Inverse.PENDING));
  }

  @Override
  public Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query) {
    return edges.list(from, type, query);
  }

  @Override
  public Future<Long> countEdges(NodeId from, String type) {
    return edges.count(from, type);
  }

  @Override
  public Future<Map<String, Boolean>> checkHosts() {
    Map<String, Pool> pools = router.pools();
    List<String> names = new ArrayList<>(pools.keySet());
    List<Future<Boolean>> checks = new ArrayList<>();
    for (String name : names) {
      checks.add(pools.get(name).query("SELECT 1").execute().map(rows -> true).otherwise(false));
    }
    return Future.join(checks).map(done -> {
      Map<String, Boolean> result = new LinkedHashMap<>();
      for (int i = 0; i < names.size(); i++) {
        result.put(names.get(i), checks.get(i).result());
      }
      return result;
    });
  }

  @Override
  public void onEdgeListChanged(EdgeChanges.Listener listener) {
    edgeChanges.listen(listener);
  }

  @Override
  public long edgeReadQueries() {
    return edges.readQueries();
  }

  @Override
  public long nodeReadQueries() {
    return nodes.readQueries();
  }

  @Override
  public Map<String, Integer> poolSizes() {
    Map<String, Integer> sizes = new LinkedHashMap<>();
    router.pools().forEach((host, pool) -> sizes.put(host, pool.size()));
    return sizes;
  }

  @Override
  public Map<String, OutboxStats> outboxStats() {
    return applier == null ? Map.of() : applier.stats();
  }

  @Override
  public Future<RepairReport> repair(String edgeType, Consumer<String> progress) {
    Context caller = vertx.getOrCreateContext();
    return Future.fromCompletionStage(
            CompletableFuture.supplyAsync(() -> repair.run(edgeType, progress), adminJobs), caller)
        .recover(failure -> Future.failedFuture(failure instanceof CompletionException wrapped && wrapped.getCause() != null
            ? wrapped.getCause() : failure));
  }

  @Override
  public Future<Void> close() {
    if (applier != null) {
      applier.close();
    }
    adminJobs.shutdownNow();
    return Future.join(hostPools.close(), backgroundPools.close()).mapEmpty();
  }
}
