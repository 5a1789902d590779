package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.edge.Edge;
import io.quiver.edge.EdgePage;
import io.quiver.edge.EdgeQuery;
import io.quiver.edge.EdgeStore;
import io.quiver.id.NodeId;
import io.quiver.node.Node;
import io.quiver.node.NodeBatch;
import io.quiver.node.NodeStore;
import io.quiver.schema.SchemaSource;
import io.quiver.shard.ShardMap;
import io.quiver.shard.ShardMapSource;
import io.quiver.sql.HostPools;
import io.quiver.sql.PoolSettings;
import io.quiver.sql.ShardClient;
import io.quiver.sql.ShardRouter;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

final class DefaultGraphStore implements GraphStore {
  private final HostPools hostPools;
  private final ShardRouter router;
  private final NodeStore nodes;
  private final EdgeStore edges;

  DefaultGraphStore(Vertx vertx, PoolSettings pools, ShardMapSource shardMaps, SchemaSource schemas, Clock clock) {
    ShardMap initial = Objects.requireNonNull(shardMaps.current(), "the shard map source holds no map yet");
    this.hostPools = new HostPools(vertx, pools);
    this.router = new ShardRouter(hostPools, initial);
    ShardClient client = new ShardClient(vertx);
    this.nodes = new NodeStore(router, client, schemas, clock);
    this.edges = new EdgeStore(router, client, schemas, nodes, clock);
    shardMaps.onChange(router::apply);
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
  public Future<Void> deleteNode(NodeId id) {
    return nodes.delete(id);
  }

  @Override
  public Future<Edge> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data) {
    return edges.add(from, type, to, sequence, data);
  }

  @Override
  public Future<Edge> getEdge(NodeId from, String type, NodeId to) {
    return edges.get(from, type, to);
  }

  @Override
  public Future<Void> removeEdge(NodeId from, String type, NodeId to) {
    return edges.remove(from, type, to);
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
  public Future<Void> close() {
    return hostPools.close();
  }
}
