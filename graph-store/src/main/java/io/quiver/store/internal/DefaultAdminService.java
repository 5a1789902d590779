package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.quiver.core.zk.ServedVersions;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.schema.SchemaRegistry;
import io.quiver.schema.SchemaSource;
import io.quiver.schema.SchemaStore;
import io.quiver.schema.UniqueIndex;
import io.quiver.store.AdminService;
import io.quiver.store.GraphStore;
import io.quiver.store.GraphStoreBuilder.RegistryPaths;
import io.quiver.store.ProvisionReport;
import io.quiver.store.RepairReport;
import io.quiver.store.UniqueRepairReport;
import io.quiver.store.MoveProgress;
import io.quiver.store.MoveReport;
import io.quiver.store.ShardMoveStatus;
import io.quiver.store.internal.move.ShardMover;
import io.quiver.store.internal.outbox.InverseRepair;
import io.quiver.store.internal.outbox.OutboxRetry;
import io.quiver.store.internal.table.ShardProvisioner;
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
 * The admin service over one backend. Each call runs its blocking work (ZooKeeper, JDBC, a
 * repair's scan, which awaits the reactive client batch by batch) on an admin thread of the
 * backend's — not a Vert.x worker: Vert.x 5 refuses {@code Future.await()} on its own threads —
 * and completes on the caller's context. Failures leave as {@link GraphException}s.
 */
final class DefaultAdminService implements AdminService {
  private static final Logger log = LoggerFactory.getLogger(DefaultAdminService.class);
  /** How long a schema change waits to be served by this process after it is published. */
  static final Duration OWN_CHANGE_TIMEOUT = Duration.ofSeconds(10);

  private final Vertx vertx;
  private final ExecutorService jobs;
  private final SchemaSource schemas;
  private final ShardMapSource shardMaps;
  private final InverseRepair repair;
  private final OutboxRetry outboxRetry;
  private final UniqueRepair uniqueRepair;
  private final ShardProvisioner provisioner;
  private final SchemaRegistry registry;
  private final ShardMapStore mapStore;
  private final SchemaStore schemaStore;
  private final RegistryPaths paths;
  /** Null without the registry's paths, like the registry. */
  private final ShardMover mover;

  /** @param paths where the documents live; null leaves this service able to repair only */
  DefaultAdminService(Vertx vertx, ExecutorService jobs, SchemaSource schemas, ShardMapSource shardMaps,
      InverseRepair repair, OutboxRetry outboxRetry, UniqueRepair uniqueRepair, ShardProvisioner provisioner,
      RegistryPaths paths, java.util.function.Function<ShardMover.Maps, ShardMover> movers) {
    this.vertx = vertx;
    this.jobs = jobs;
    this.schemas = schemas;
    this.shardMaps = shardMaps;
    this.repair = repair;
    this.outboxRetry = outboxRetry;
    this.uniqueRepair = uniqueRepair;
    this.paths = paths;
    this.provisioner = provisioner;
    this.schemaStore = paths == null ? null : new SchemaStore(paths.curator(), paths.schemaPath());
    this.mapStore = paths == null ? null : new ShardMapStore(paths.curator(), paths.shardMapPath());
    this.registry = paths == null ? null
        : new SchemaRegistry(schemaStore, schema -> {
          refuseDuringMove();
          provisioner.provision(shardMaps.current(), schema);
        }, new Indexes());
    this.mover = paths == null ? null : movers.apply(moverMaps());
  }

  /** The registry's unique indexes: sized from the shard map, built by the repair's scan. */
  private final class Indexes implements SchemaRegistry.IndexBuilder {
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
      return uniqueRepair.run(schema, type, field, line -> log.info("unique index build: {}", line)).duplicates();
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
      UniqueRepairReport report = uniqueRepair.run(schema, type, field, progress);
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
    return run(() -> outboxRetry.run(host));
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
    return run(() -> provisioner.provision(storedMap(), schemaStore().read().orElse(Schema.empty())));
  }

  @Override
  public Future<RepairReport> repair(String edgeType, Consumer<String> progress) {
    return run(() -> repair.run(edgeType, progress));
  }

  @Override
  public Future<Schema> schema() {
    return Future.succeededFuture(schemas.current());
  }

  @Override
  public Future<ShardMap> shardMap() {
    return run(this::storedMap);
  }

  @Override
  public Future<ShardMap> changeShardMap(ShardMapChange change, long expectedVersion) {
    if (change instanceof ShardMapChange.MoveShards) {
      return Future.failedFuture(GraphException.invalid("shards are moved by a shard move, which copies their data"
          + " before the map names their new host; the map change alone would lose it"));
    }
    return run(() -> applyChange(change, expectedVersion));
  }

  @Override
  public Future<MoveReport> moveShards(ShardSpan shards, String to, String stopBefore,
      Consumer<MoveProgress> progress) {
    return run(() -> mover().move(shards, to, stopBefore, progress));
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

  /** Stops a move this server runs at its next step; its lease goes with the session. */
  void close() {
    if (mover != null) {
      mover.close();
    }
  }

  private ShardMover mover() {
    requireRegistry();
    return mover;
  }

  /** The shard map as a move changes it: through {@link #applyChange}, like an operator's change. */
  ShardMover.Maps moverMaps() {
    return new ShardMover.Maps() {
      @Override
      public ShardMap stored() throws Exception {
        return storedMap();
      }

      @Override
      public ShardMap change(ShardMapChange change) throws Exception {
        return applyChange(change, GraphStore.ANY_VERSION);
      }

      @Override
      public Schema schema() {
        return schemas.current();
      }
    };
  }

  /** Checks, provisions, publishes one version up and waits until this process routes by it. */
  private ShardMap applyChange(ShardMapChange change, long expectedVersion) throws Exception {
    ShardMap stored = storedMap();
    if (expectedVersion != GraphStore.ANY_VERSION && expectedVersion != stored.version()) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "the shard map is at version " + stored.version()
          + ", not " + expectedVersion + "; read it again before changing it");
    }
    ShardMap next = change.applyTo(stored).withVersion(stored.version() + 1);
    // A map never names a host it cannot reach: every host it gains (or readdresses) answers first.
    for (Host host : next.hosts().values()) {
      if (!host.equals(stored.hosts().get(host.name()))) {
        provisioner.reach(host);
      }
    }
    if (change.createsShards()) {
      provisioner.provision(next, schemas.current());
    }
    mapStore().publish(next);
    log.info("shard map version {}: {}", next.version(), change.describe());
    return shardMaps.awaitVersion(next.version(), OWN_CHANGE_TIMEOUT);
  }

  private ShardMap storedMap() throws Exception {
    return mapStore().read().orElseThrow(() -> GraphException.notFound("no shard map at " + mapStore().path()));
  }

  private SchemaRegistry registry() {
    requireRegistry();
    return registry;
  }

  private ShardMapStore mapStore() {
    requireRegistry();
    return mapStore;
  }

  private SchemaStore schemaStore() {
    requireRegistry();
    return schemaStore;
  }

  private void requireRegistry() {
    if (registry == null) {
      throw GraphException.of(GraphException.Code.INTERNAL,
          "this backend was built without the registry's ZooKeeper paths (GraphStoreBuilder.registry)");
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
