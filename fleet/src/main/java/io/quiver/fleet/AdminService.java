package io.quiver.fleet;

import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.store.GraphStore;
import io.quiver.store.RepairReport;
import io.quiver.store.UniqueRepairReport;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardSpan;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The one way to administer a fleet, used alike by the HTTP admin routes and the command line:
 * define types, provision shards, repair inverse edges, read and publish the shard map. Every
 * call returns a Future completed on the caller's context; the blocking work behind it
 * (ZooKeeper, JDBC, a repair's scan) runs on admin threads of its own, never on an event loop.
 *
 * <p>Refusals are {@link io.quiver.core.GraphException}s: INVALID_ARGUMENT for a definition that
 * is malformed, INCOMPATIBLE_CHANGE naming the broken {@link io.quiver.schema.SchemaRule} for one
 * the compatibility rules refuse, UNAVAILABLE when ZooKeeper or a host cannot be reached.
 *
 * <p>Two implementations answer alike (one contract suite runs against both): the one
 * {@link #builder} assembles over a process's own backend, and the one in graph-api that reaches a
 * running server's admin API.
 */
public interface AdminService extends AutoCloseable {

  /**
   * Why {@link #changeShardMap} refuses {@code change}, if it does — one rule for every
   * implementation: shards change hosts only by a move (which copies them first), a host is added
   * without replicas, and replicas are listed, unlisted and promoted only by the calls that seed,
   * stop and promote them.
   */
  static Optional<GraphException> refusal(ShardMapChange change) {
    if (change instanceof ShardMapChange.MoveShards) {
      return Optional.of(GraphException.invalid("shards are moved by a shard move, which copies their data before"
          + " the map names their new host; the map change alone would lose it"));
    }
    if (change instanceof ShardMapChange.AddHost add && !add.host().replicas().isEmpty()) {
      return Optional.of(GraphException.invalid("a host is added without replicas; add each one then with"
          + " addReplica (quiver hosts add-replica), which seeds it from the primary before the map lists it"));
    }
    if (change instanceof ShardMapChange.AddReplica || change instanceof ShardMapChange.RemoveReplica
        || change instanceof ShardMapChange.Promote) {
      return Optional.of(GraphException.invalid("replicas are added by addReplica, which seeds them before the map"
          + " lists them, removed by removeReplica, which stops them, and promoted by a failover or a switchover"));
    }
    return Optional.empty();
  }

  /** Assembles the admin service of this process, over its backend's repairs. */
  static AdminServiceBuilder builder(Vertx vertx) {
    return new AdminServiceBuilder(vertx);
  }

  /**
   * Checks, provisions on every shard and publishes a node type; answers once this process serves
   * the new schema, so the caller reads its own change.
   */
  default Future<Schema> defineNodeType(NodeType type) {
    return defineNodeType(type, Set.of());
  }

  /** As {@link #defineNodeType(NodeType)}, allowing what {@code permits} names (changed defaults, say). */
  Future<Schema> defineNodeType(NodeType type, Set<SchemaChanges.Permit> permits);

  /** As {@link #defineNodeType(NodeType)}, for an edge type. */
  default Future<Schema> defineEdgeType(EdgeType type) {
    return defineEdgeType(type, Set.of());
  }

  /** As {@link #defineEdgeType(EdgeType)}, allowing what {@code permits} names. */
  Future<Schema> defineEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits);

  /**
   * What {@link #defineNodeType(NodeType, Set)} would publish — the stored schema when nothing would
   * change — or its INCOMPATIBLE_CHANGE refusal; changes nothing.
   */
  Future<Schema> previewNodeType(NodeType type, Set<SchemaChanges.Permit> permits);

  /** As {@link #previewNodeType}, for an edge type. */
  Future<Schema> previewEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits);

  /** Defines every type of a schema document that is not already defined as it is there. */
  Future<Schema> applySchema(Schema document);

  /** Creates every missing shard database and table of the stored shard map and schema. */
  Future<ProvisionReport> provision();

  /** Scans an edge type and its inverse, fixing every pair whose copies differ, reporting progress as it goes. */
  Future<RepairReport> repair(String edgeType, Consumer<String> progress);

  /**
   * Scans a unique field's index against the stored nodes (FriendFeed's Cleaner): restores missing
   * claims, removes claims no node backs, lists values held twice, reporting progress as it goes.
   * An index still building turns active when the scan finds no duplicates.
   */
  Future<UniqueRepairReport> repairUnique(String type, String field, Consumer<String> progress);

  /**
   * Sets every parked outbox entry of a host's shards (every host's, when {@code host} is null) to
   * be tried again now, its attempts counted afresh: after the cause of their failures is fixed.
   * Answers how many were parked.
   */
  Future<Long> retryParked(String host);

  /** The schema this process serves: the registry's types with their fields, defaults and unique indexes. */
  Future<Schema> schema();

  /** The shard map as ZooKeeper holds it now. */
  Future<ShardMap> shardMap();

  /**
   * Makes one change to the shard map — add a host, open shards, set shards' state — and
   * publishes it one version up, compare-and-set; answers once this process routes by it. A new
   * host must be reachable and every shard the changed map names is provisioned before anything is
   * published. {@code expectedVersion} ({@link GraphStore#ANY_VERSION} for none) is the version the
   * operator decided on: another one stored is a VERSION_CONFLICT, as is a change published
   * meanwhile; a change the map cannot take is INVALID_ARGUMENT saying why, and so is a
   * {@link ShardMapChange.MoveShards} (shards change hosts only through {@link #moveShards}) and a
   * replica's change (replicas are listed by {@link #addReplica}, which seeds them, and unlisted
   * by {@link #removeReplica}, which stops them).
   */
  Future<ShardMap> changeShardMap(ShardMapChange change, long expectedVersion);

  /**
   * Moves {@code shards} (all on one host) to host {@code to} while they keep serving: copy,
   * catch-up, verify, cut-over, cleanup ({@code ShardMover} says how), reporting each step to
   * {@code progress}. Resumes the recorded move when it is this one; VERSION_CONFLICT when another
   * is under way, or when the verification finds the copy differs (the move stops before its
   * cut-over and says where). With {@code stopBefore} ({@code catch-up}, {@code verify},
   * {@code cut-over}) the run stops before that phase, replication still running, for a rerun to
   * go on from; null runs to the end.
   */
  Future<MoveReport> moveShards(ShardSpan shards, String to, String stopBefore, Consumer<MoveProgress> progress);

  /** The shard move under way, if any. */
  Future<Optional<ShardMoveStatus>> shardMove();

  /** Cancels the move under way, before its cut-over; the map and the source stay as they were. */
  Future<ShardMoveStatus> cancelShardMove();

  /**
   * Makes the server at {@code address} a replica of {@code host}: seeded from one consistent
   * snapshot of the primary (or, when it holds data already, resumed from its own position),
   * replicating by GTID, confirming every write before the primary acknowledges it
   * ({@link ReplicaAcks}), caught up — then listed in the shard map, whose new version this
   * answers. Idempotent for a replica already listed. INVALID_ARGUMENT for an unknown host or an
   * address that is already a primary or another host's replica; UNAVAILABLE when either server
   * cannot be reached or the replica does not catch up.
   */
  Future<ShardMap> addReplica(String host, String address, Consumer<String> progress);

  /**
   * Unlists the replica at {@code address} of {@code host}, then stops its replication; a primary
   * left without replicas stops waiting for confirmations. NOT_FOUND when the host does not list it.
   */
  Future<ShardMap> removeReplica(String host, String address);

  /**
   * Makes {@code host}'s replica {@code to} (the one that received the most, when null) its primary
   * for maintenance, with nothing lost: writes to its shards refused (503, for well under a second),
   * the primary made read-only, the replica caught up with it exactly and promoted, the map flipped,
   * the old primary made a replica of the new one. Recorded with the failovers ({@code planned}).
   * INVALID_ARGUMENT for an unknown host or replica; UNAVAILABLE when the primary cannot be made
   * read-only (nothing is switched) or the replica does not catch up.
   */
  Future<FailoverReport> switchover(String host, String to);

  /** Every failover and switchover recorded, oldest first (the last hundred). */
  Future<List<FailoverReport>> failovers();

  /** Drops the retired copies moves left on the fleet's hosts that are older than {@code grace}; answers their names. */
  Future<List<String>> dropRetiredShards(Duration grace);

  /** Stops a shard move this process runs at its next step (its lease goes with it) and lets its threads go. */
  @Override
  default void close() {
  }
}
