package io.quiver.store;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.edge.Edge;
import io.quiver.edge.EdgePage;
import io.quiver.edge.EdgeQuery;
import io.quiver.id.NodeId;
import io.quiver.node.Node;
import io.quiver.node.NodeBatch;
import io.quiver.schema.SchemaSource;
import io.quiver.shard.ShardMapSource;
import io.quiver.shard.ShardResolver;
import io.quiver.sql.PoolSettings;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.List;
import java.util.Map;

/**
 * The graph operations over a fleet of sharded MySQL hosts. Callers never see a shard: an ID
 * says where its node lives, and edges live with their FROM node.
 *
 * <p>Every method returns a Future and never throws; failures are {@link
 * io.quiver.error.GraphException}s. Nothing here blocks the calling event loop.
 */
public interface GraphStore extends ShardResolver {

  /**
   * A store serving the shard map from {@code shardMaps} (following its changes) and the types
   * of {@code schemas}. The source must already hold a map.
   */
  static GraphStore create(
      Vertx vertx, PoolSettings pools, ShardMapSource shardMaps, SchemaSource schemas, Clock clock) {
    return new DefaultGraphStore(vertx, pools, shardMaps, schemas, clock);
  }

  Future<Node> createNode(String type, ObjectNode data, NodeId colocateWith);

  Future<Node> getNode(NodeId id);

  /** The nodes in request order, and the IDs not found; one query per shard. */
  Future<NodeBatch> getNodes(List<NodeId> ids);

  /** Applies a JSON merge patch; {@code expectedVersion} may be {@link #ANY_VERSION}. */
  Future<Node> updateNode(NodeId id, ObjectNode patch, long expectedVersion);

  Future<Node> replaceNode(NodeId id, ObjectNode data, long expectedVersion);

  Future<Void> deleteNode(NodeId id);

  /** Adds or updates an edge; a null sequence or data keeps an existing edge's. */
  Future<Edge> addEdge(NodeId from, String type, NodeId to, Long sequence, ObjectNode data);

  Future<Edge> getEdge(NodeId from, String type, NodeId to);

  Future<Void> removeEdge(NodeId from, String type, NodeId to);

  Future<EdgePage> getEdges(NodeId from, String type, EdgeQuery query);

  Future<Long> countEdges(NodeId from, String type);

  /** Each host's name and whether it answered a trivial query. */
  Future<Map<String, Boolean>> checkHosts();

  Future<Void> close();

  long ANY_VERSION = io.quiver.node.NodeStore.ANY_VERSION;
}
