package io.quiver.fleet.internal;

import io.quiver.core.DaemonThreads;
import io.quiver.core.GraphException;
import io.quiver.core.zk.ServedVersions;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.FailoverReport;
import io.quiver.fleet.FailoverSettings;
import io.quiver.fleet.MoveProgress;
import io.quiver.fleet.MoveReport;
import io.quiver.fleet.ProvisionReport;
import io.quiver.fleet.ReplicaAcks;
import io.quiver.fleet.ShardMoveStatus;
import io.quiver.fleet.internal.failover.Failover;
import io.quiver.fleet.internal.failover.FailoverCoordinator;
import io.quiver.fleet.internal.failover.FailoverLog;
import io.quiver.fleet.internal.move.ShardMover;
import io.quiver.fleet.internal.replica.Replicas;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.schema.SchemaSource;
import io.quiver.schema.SchemaStore;
import io.quiver.schema.UniqueIndex;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.GraphStoreBuilder.RegistryPaths;
import io.quiver.store.PoolSettings;
import io.quiver.store.RepairReport;
import io.quiver.store.Repairs;
import io.quiver.store.UniqueRepairReport;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardMapSource;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardSpan;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.sql.SQLException;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The admin service of one process: every change to the fleet starts here and runs top-down —
 * schema publishing ({@link SchemaRegistry}, which provisions each new type's tables before it
 * publishes), shard-map changes ({@link MapChanges}), provisioning ({@link ShardProvisioner}),
 * shard moves ({@link ShardMover}, which changes the map through the same {@link MapChanges}),
 * replicas ({@link Replicas}: seeded and replicating before the map lists them), failovers
 * ({@link FailoverCoordinator}: one coordinator among the servers promotes a silent primary's replica),
 * and the backend's repairs ({@link Repairs}), run when an operator asks or when a unique index is
 * built behind its fence. Nothing below calls back up into it.
 *
 * <p>Each call runs its blocking work (ZooKeeper, JDBC, waiting for a repair's scan) on a daemon
 * thread of its own — not a Vert.x worker: Vert.x 5 refuses {@code Future.await()} on its own
 * threads — and completes on the caller's context. Failures leave as {@link GraphException}s.
 */
public final class DefaultAdminService implements AdminService {
  private static final Logger log = LoggerFactory.getLogger(DefaultAdminService.class);
  /** How long a schema change waits to be served by this process after it is published. */
  static final Duration OWN_CHANGE_TIMEOUT = Duration.ofSeconds(10);

  /**
   * What the builder gathered; {@code registry} may be null (a service that can repair only).
   */
  /** The repairs of a service built without a backend's: each refused, saying so. */
  private static final Repairs NO_REPAIRS = new Repairs() {
    @Override
    public Future<io.quiver.store.RepairReport> edges(String edgeType, Consumer<String> progress) {
      return Future.failedFuture(refusal());
    }

    @Override
    public Future<UniqueRepairReport> unique(Schema schema, String type, String field, Consumer<String> progress) {
      return Future.failedFuture(refusal());
    }

    @Override
    public Future<Long> retryParked(String host) {
      return Future.failedFuture(refusal());
    }

    @Override
    public Future<Void> caughtUp(String host) {
      return Future.failedFuture(refusal());
    }

    private GraphException refusal() {
      return GraphException.of(GraphException.Code.INTERNAL,
          "this admin service was built without a backend's repairs (AdminServiceBuilder.repairs)");
    }
  };

  public record Settings(Repairs repairs, SchemaSource schemas, ShardMapSource shardMaps, PoolSettings pools,
      RegistryPaths registry, ReplicaAcks acks, FailoverSettings failover, ChangeLogSettings changeLog, Clock clock,
      String serverId) {}

  private final Vertx vertx;
  /** Whether the change log is written from the binary log: then moves and new replicas wait for tailers. */
  private final boolean tailed;
  /** Admin jobs block on ZooKeeper, JDBC and the reactive client: daemon threads of their own. */
  private final ExecutorService jobs = DaemonThreads.cached("quiver-admin-job");
  private final SchemaSource schemas;
  private final Repairs repairs;
  private final ShardProvisioner provisioner;
  private final Replicas replicas;
  private final ReplicaAcks acks;
  private final RegistryPaths paths;
  /** The next four are null without the registry's paths. */
  private final SchemaStore schemaStore;
  private final MapChanges maps;
  private final SchemaRegistry registry;
  private final ShardMover mover;
  private final FailoverLog failovers;
  private final Failover failover;
  /** Null unless this process takes part in coordinating failovers ({@link FailoverSettings#enabled}). */
  private final FailoverCoordinator coordinator;

  public DefaultAdminService(Vertx vertx, Settings settings) {
    this.vertx = vertx;
    this.schemas = settings.schemas();
    this.repairs = settings.repairs() == null ? NO_REPAIRS : settings.repairs();
    this.paths = settings.registry();
    PoolSettings pools = settings.pools();
    this.provisioner = new ShardProvisioner(pools.user(), pools.password());
    this.tailed = settings.changeLog().tailed();
    this.replicas = new Replicas(provisioner, pools.user(), pools.password(), repairs, tailed);
    this.acks = settings.acks();
    if (paths == null) {
      this.schemaStore = null;
      this.maps = null;
      this.registry = null;
      this.mover = null;
      this.failovers = null;
      this.failover = null;
      this.coordinator = null;
      return;
    }
    this.schemaStore = new SchemaStore(paths.curator(), paths.schemaPath());
    this.maps = new MapChanges(new ShardMapStore(paths.curator(), paths.shardMapPath()), settings.shardMaps(),
        schemas, provisioner, OWN_CHANGE_TIMEOUT);
    this.mover = new ShardMover(paths.curator(), paths.movePath(), paths.mapServedPath(), settings.serverId(), maps,
        provisioner, pools.user(), pools.password(), settings.clock(), repairs, tailed);
    ShardMapSource shardMaps = settings.shardMaps();
    this.registry = new SchemaRegistry(schemaStore, schema -> {
      refuseDuringMove();
      provisioner.provision(shardMaps.current(), schema);
    }, new Indexes(shardMaps));
    this.failovers = new FailoverLog(paths.curator(), paths.shardMapPath() + "-failovers");
    this.failover = new Failover(maps, replicas, acks, settings.failover(), paths.curator(), paths.mapServedPath(),
        failovers, repairs, schemas, settings.clock());
    this.coordinator = settings.failover().enabled()
        ? new FailoverCoordinator(maps, provisioner, failover, settings.failover(), paths.curator(),
            paths.shardMapPath() + "-failover-leader", failovers, settings.serverId(), settings.clock())
        : null;
    if (coordinator != null) {
      coordinator.start();
    }
  }

  /** The registry's unique indexes: sized from the shard map, built by the repair's scan. */
  private final class Indexes implements SchemaRegistry.IndexBuilder {
    private final ShardMapSource shardMaps;

    Indexes(ShardMapSource shardMaps) {
      this.shardMaps = shardMaps;
    }

    @Override
    public int shardCount() {
      List<Integer> shards = shardMaps.current().allShards();
      if (shards.isEmpty() || shards.get(0) != 0 || shards.get(shards.size() - 1) != shards.size() - 1) {
        throw GraphException.invalid("a unique index spreads over shards 0 to N-1; the shard map holds " + shards.size()
            + " shards from " + (shards.isEmpty() ? "none" : shards.get(0)));
      }
      return shards.size();
    }

    /** Waits until every server writes under the building index (their writes claim), then scans. */
    @Override
    public List<UniqueIndex.Duplicate> build(Schema schema, String type, String field) throws Exception {
      schemas.awaitVersion(schema.version(), OWN_CHANGE_TIMEOUT);
      awaitEveryServer(schema.version(), type, field);
      return repairs.unique(schema, type, field, line -> log.info("unique index build: {}", line)).await()
          .duplicates();
    }
  }

  /**
   * The fence before a building index is scanned: every server acknowledges the version that
   * declares it — no write begun under an older one is still in flight anywhere — so every write
   * that can still commit claims its values, and the scan misses none.
   */
  private void awaitEveryServer(long version, String type, String field) throws Exception {
    // A server that died keeps its registration until its session expires: wait that long too.
    Duration fence = OWN_CHANGE_TIMEOUT.plusMillis(paths.curator().getZookeeperClient().getZooKeeper().getSessionTimeout());
    try {
      ServedVersions.awaitAll(paths.curator(), paths.servedPath(), version, fence);
    } catch (java.util.concurrent.TimeoutException late) {
      throw GraphException.unavailable("the unique index of " + type + "." + field + " stays building: "
          + late.getMessage() + "; run the repair (quiver repair --unique " + type + "." + field
          + ") once they do");
    }
  }

  @Override
  public Future<UniqueRepairReport> repairUnique(String type, String field, Consumer<String> progress) {
    return run(() -> {
      Schema schema = schemas.current();
      var def = schema.nodeType(type).map(t -> t.fields().definitions().get(field)).orElse(null);
      if (def != null && def.unique() != null && !def.unique().active() && paths != null) {
        awaitEveryServer(schema.version(), type, field);
      }
      UniqueRepairReport report = repairs.unique(schema, type, field, progress).await();
      if (report.active() || !report.duplicates().isEmpty() || registry == null) {
        return report;
      }
      served(registry.activate(type, field));
      progress.accept("no value is held twice: the index of " + type + "." + field + " is active");
      return report.activated();
    });
  }

  @Override
  public Future<Schema> defineNodeType(NodeType type, Set<SchemaChanges.Permit> permits) {
    return run(() -> served(registry().defineNodeType(type, permits)));
  }

  @Override
  public Future<Schema> defineEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits) {
    return run(() -> served(registry().defineEdgeType(type, permits)));
  }

  @Override
  public Future<Schema> previewNodeType(NodeType type, Set<SchemaChanges.Permit> permits) {
    return run(() -> registry().previewNodeType(type, permits));
  }

  @Override
  public Future<Schema> previewEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits) {
    return run(() -> registry().previewEdgeType(type, permits));
  }

  @Override
  public Future<Long> retryParked(String host) {
    return run(() -> repairs.retryParked(host).await());
  }

  @Override
  public Future<Schema> applySchema(Schema document) {
    return run(() -> served(registry().apply(document)));
  }

  /** Waits until this process serves the published version, so the caller reads its own change. */
  private Schema served(Schema published) throws Exception {
    return schemas.awaitVersion(published.version(), OWN_CHANGE_TIMEOUT);
  }

  @Override
  public Future<ProvisionReport> provision() {
    return run(() -> provisioner.provision(maps().stored(), schemaStore().read().orElse(Schema.empty())));
  }

  @Override
  public Future<RepairReport> repair(String edgeType, Consumer<String> progress) {
    return run(() -> repairs.edges(edgeType, progress).await());
  }

  @Override
  public Future<Schema> schema() {
    return Future.succeededFuture(schemas.current());
  }

  @Override
  public Future<ShardMap> shardMap() {
    return run(() -> maps().stored());
  }

  @Override
  public Future<ShardMap> changeShardMap(ShardMapChange change, long expectedVersion) {
    Optional<GraphException> refused = AdminService.refusal(change);
    if (refused.isPresent()) {
      return Future.failedFuture(refused.get());
    }
    return run(() -> maps().change(change, expectedVersion));
  }

  @Override
  public Future<MoveReport> moveShards(ShardSpan shards, String to, String stopBefore,
      Consumer<MoveProgress> progress) {
    return run(() -> {
      requireRepairsWhenTailed("a shard move's cut-over waits for the source's tailer");
      return mover().move(shards, to, stopBefore, progress);
    });
  }

  /**
   * With the change log written from the binary log, refuses what must wait for a host's tailer
   * ({@code why}) when this admin service was built without a backend's repairs to wait through.
   */
  private void requireRepairsWhenTailed(String why) {
    if (tailed && repairs == NO_REPAIRS) {
      throw GraphException.invalid("with changes.source: binlog " + why + " through a backend's repairs, and this"
          + " admin service was built without them (AdminServiceBuilder.repairs)");
    }
  }

  @Override
  public Future<Optional<ShardMoveStatus>> shardMove() {
    return run(() -> mover().status());
  }

  @Override
  public Future<ShardMoveStatus> cancelShardMove() {
    return run(() -> mover().cancel());
  }

  @Override
  public Future<ShardMap> addReplica(String host, String address, Consumer<String> progress) {
    return run(() -> {
      requireRepairsWhenTailed("a seeded replica waits for its primary's tailer");
      ShardMapChange.AddReplica change = new ShardMapChange.AddReplica(host, address);
      ShardMap map = maps().stored();
      Host primary = map.hosts().get(host);
      if (primary == null || !primary.replicas().contains(address)) {
        change.applyTo(map); // refuses an unknown host or a taken address before anything is touched
      }
      Optional<ShardMoveStatus> moving = mover == null ? Optional.empty() : mover.status();
      if (moving.isPresent() && moving.get().to().equals(host)) {
        // A snapshot taken now would hold part of the copy, and the rest of it never reaches a replica.
        throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "shards " + moving.get().shards()
            + " are moving to " + host + "; add its replica once the move is done (or cancelled)");
      }
      replicas.add(primary, address, acks, progress);
      return primary.replicas().contains(address) ? map : maps().change(change);
    });
  }

  @Override
  public Future<ShardMap> removeReplica(String host, String address) {
    return run(() -> {
      ShardMap map = maps().stored();
      ShardMap next = maps().change(new ShardMapChange.RemoveReplica(host, address), map.version());
      Host primary = map.hosts().get(host);
      replicas.remove(primary, address, primary.replicas().size() == 1, acks);
      return next;
    });
  }

  @Override
  public Future<FailoverReport> switchover(String host, String to) {
    return run(() -> {
      requireRegistry();
      return failover.switchover(host, to);
    });
  }

  @Override
  public Future<List<FailoverReport>> failovers() {
    return run(() -> {
      requireRegistry();
      return failovers.read();
    });
  }

  @Override
  public Future<List<String>> dropRetiredShards(Duration grace) {
    return run(() -> mover().dropRetired(grace));
  }

  /**
   * A type defined while shards move would get its tables on the source only, and the move's
   * replication would stop at the first row written to them: types wait until the move is done.
   */
  private void refuseDuringMove() throws Exception {
    Optional<ShardMoveStatus> moving = mover == null ? Optional.empty() : mover.status();
    if (moving.isPresent()) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "shards " + moving.get().shards() + " are moving to "
          + moving.get().to() + "; change the schema once the move is done (or cancelled)");
    }
  }

  /** Stops a move this server runs at its next step (its lease goes with the session), and the admin threads. */
  @Override
  public void close() {
    if (coordinator != null) {
      coordinator.close();
    }
    if (failover != null) {
      failover.close();
    }
    if (mover != null) {
      mover.close();
    }
    jobs.shutdownNow();
  }

  private ShardMover mover() {
    requireRegistry();
    return mover;
  }

  private SchemaRegistry registry() {
    requireRegistry();
    return registry;
  }

  private MapChanges maps() {
    requireRegistry();
    return maps;
  }

  private SchemaStore schemaStore() {
    requireRegistry();
    return schemaStore;
  }

  private void requireRegistry() {
    if (registry == null) {
      throw GraphException.of(GraphException.Code.INTERNAL,
          "this admin service was built without the registry's ZooKeeper paths (AdminServiceBuilder.registry)");
    }
  }

  /** Runs blocking admin work on an admin thread and completes on the caller's context. */
  private <T> Future<T> run(Callable<T> work) {
    Context caller = vertx.getOrCreateContext();
    CompletableFuture<T> done = CompletableFuture.supplyAsync(() -> {
      try {
        return work.call();
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    }, jobs);
    return Future.fromCompletionStage(done, caller).recover(failure -> Future.failedFuture(classify(failure)));
  }

  private static GraphException classify(Throwable failure) {
    Throwable cause = failure instanceof CompletionException wrapped && wrapped.getCause() != null
        ? wrapped.getCause() : failure;
    if (cause instanceof GraphException graph) {
      return graph;
    }
    if (cause instanceof SQLException provisioning) {
      return GraphException.of(GraphException.Code.UNAVAILABLE,
          "could not create the tables on every shard: " + provisioning.getMessage(), provisioning);
    }
    if (cause instanceof java.util.concurrent.TimeoutException late) {
      return GraphException.of(GraphException.Code.UNAVAILABLE, "the change was published but is not yet served here: "
          + late.getMessage(), late);
    }
    return GraphException.of(GraphException.Code.INTERNAL, "admin work failed: " + cause.getMessage(), cause);
  }
}
