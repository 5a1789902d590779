package io.quiver.store.internal;

import io.quiver.core.Futures;
import io.quiver.core.zk.ServedVersions;
import io.quiver.core.zk.VersionFence;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ApplierSettings;
import io.quiver.store.BulkImport;
import io.quiver.store.ChangeFeed;
import io.quiver.store.ChangeGroups;
import io.quiver.store.ChangeLog;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphChange;
import io.quiver.store.GraphStore;
import io.quiver.store.GraphStoreBuilder.RegistryPaths;
import io.quiver.store.OutboxStats;
import io.quiver.store.PoolSettings;
import io.quiver.store.ReplicaReadFigures;
import io.quiver.store.ReadTokenSettings;
import io.quiver.store.ReplicaReadSettings;
import io.quiver.store.Repairs;
import io.quiver.store.StoreTelemetry;
import io.quiver.store.internal.outbox.Cascades;
import io.quiver.store.internal.outbox.InverseRepair;
import io.quiver.store.internal.outbox.InverseWriter;
import io.quiver.store.internal.outbox.OutboxDrain;
import io.quiver.store.internal.outbox.OutboxHandlers;
import io.quiver.store.internal.outbox.OutboxRetry;
import io.quiver.store.internal.outbox.TailBarrier;
import io.quiver.store.internal.sql.CommitWatch;
import io.quiver.store.internal.sql.GroupCommit;
import io.quiver.store.internal.sql.HostHealth;
import io.quiver.store.internal.sql.HostPools;
import io.quiver.store.internal.sql.MapWrites;
import io.quiver.store.internal.sql.QueryKiller;
import io.quiver.store.internal.sql.ReplicaLag;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapSource;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import org.apache.curator.framework.CuratorFramework;

/**
 * A backend, wired: two sets of per-host pools (requests, and background work — the drainer,
 * cascades, repair — so that a burst of background work never takes a request's connection),
 * a router for each that follows the shard map, the request-path store, the background store
 * that cascades remove edges through, the outbox drain, the repairs' scans, and one change feed
 * that every writer among them announces on. What changes the fleet — the schema, the shard map,
 * the tables, a shard move — is not here but in the fleet module, which holds a backend's
 * {@link #repairs()}; a backend keeps only the acknowledging side of the fleet's fences (the
 * versions it serves, {@link ServedVersions}).
 */
public final class DefaultBackend implements GraphBackend {

  /** What the builder gathered; {@code drainCoordination} and {@code registry} may be null. */
  public record Settings(PoolSettings pools, ShardMapSource shardMaps, SchemaSource schemas,
      CuratorFramework drainCoordination, ApplierSettings applier, RegistryPaths registry, Clock clock,
      String serverId, ReplicaReadSettings replicaReads, ChangeLogSettings changeLog, ReadTokenSettings readTokens) {}

  private final HostHealth health;
  private final ReplicaLag replicaLag;
  private final HostPools requestPools;
  private final HostPools backgroundPools;
  private final ShardRouter router;
  private final ShardRouter backgroundRouter;
  private final Changes changes = new Changes();
  private final SchemaSource schemas;
  private final DefaultGraphStore store;
  private final OutboxDrain drain;
  private final Repairs repairs;
  private final java.util.function.Function<String, Future<BulkImport>> imports;
  private final StoreTelemetry telemetry;
  /** This backend's acknowledgement of the schema version it writes under; null without the registry's paths. */
  private final ServedVersions served;
  /** The same for the shard-map version: the fence of a shard move's cut-over. */
  private final ServedVersions mapServed;
  private final MapWrites mapWrites;
  private final ShardClient client;
  /** Client writes to one host (edges, node updates), committed together while its transactions are busy. */
  private final GroupCommit groups;
  private final ChangeLog changeLog;
  private final ChangeGroups changeGroups;

  public DefaultBackend(Vertx vertx, Settings settings) {
    ShardMap initial = Objects.requireNonNull(settings.shardMaps().current(), "the shard map source holds no map yet");
    SchemaSource schemas = settings.schemas();
    this.schemas = schemas;
    Clock clock = settings.clock();
    // Read from the binary log, the change log and the inverses need every write there: a host
    // whose log is off refuses writes, and a COMMIT a full disk holds is never killed.
    boolean logRequired = settings.changeLog().tailed();
    CommitWatch commits = new CommitWatch(clock, logRequired);
    QueryKiller killer = new QueryKiller(settings.pools().statementTimeout().toMillis(), logRequired);
    this.health = new HostHealth(vertx, settings.pools(), clock, initial, commits, killer);
    this.requestPools = new HostPools(vertx, settings.pools(), killer);
    this.replicaLag = new ReplicaLag(vertx, settings.pools(), settings.replicaReads(), clock, initial);
    this.router = new ShardRouter(requestPools, health, replicaLag, initial);
    this.backgroundPools = new HostPools(vertx, settings.pools().forBackground(), killer);
    this.backgroundRouter = new ShardRouter(backgroundPools, health, initial);

    RegistryPaths paths = settings.registry();
    this.served = paths == null ? null
        : new ServedVersions(paths.curator(), paths.servedPath(), settings.serverId(), schemas.current().version());
    this.mapServed = paths == null ? null
        : new ServedVersions(paths.curator(), paths.mapServedPath(), settings.serverId(), initial.version());
    this.mapWrites = new MapWrites(router::shardMap, mapServed == null ? version -> { } : mapServed::acknowledge);
    this.client = new ShardClient(vertx, settings.pools(), mapWrites, commits, killer);
    VersionFence<Schema> writes = new VersionFence<>(schemas::current, Schema::version,
        served == null ? version -> { } : served::acknowledge);
    schemas.onChange(changed -> writes.evaluate());
    UniqueClaims unique = new UniqueClaims(router, backgroundRouter, client, schemas, clock);
    ChangeWriter changeWriter = ChangeWriter.of(settings.changeLog(), schemas, clock);
    this.groups = new GroupCommit(client, settings.pools().writeTransactions(), settings.pools().maxWaitQueue());
    NodeStore nodes = new NodeStore(router, client, groups, schemas, changes, unique, writes, changeWriter, clock);
    InverseEntries inverseEntries = InverseEntries.of(settings.changeLog(), clock);
    InverseNow inverseNow = new InverseNow(router, client, schemas,
        new InverseWriter(router, client, schemas, changes, changeWriter));
    this.store = new DefaultGraphStore(nodes, new EdgeStore(router, client, groups, schemas, changes, changeWriter,
        inverseEntries, clock),
        inverseNow, new TokenSettler(vertx, inverseNow, settings.readTokens(), clock), this::outboxWritten, clock);

    NodeStore backgroundNodes = new NodeStore(backgroundRouter, client, groups, schemas, changes, unique, writes,
        changeWriter, clock);
    EdgeStore backgroundEdges = new EdgeStore(backgroundRouter, client, groups, schemas, changes, changeWriter,
        inverseEntries, clock);
    GraphStore backgroundStore = new DefaultGraphStore(backgroundNodes, backgroundEdges, null, null,
        this::outboxWritten, clock);
    InverseWriter writer = new InverseWriter(backgroundRouter, client, schemas, changes, changeWriter);
    ImportClaims importClaims = new ImportClaims(vertx, paths == null ? null : paths.curator(),
        paths == null ? null : paths.importsPath());
    this.imports = name -> Futures.attempt(() -> BulkWriter.requireName(name))
        .compose(importClaims::claim)
        .map(claim -> new BulkWriter(name, claim, backgroundRouter, client, schemas, backgroundNodes, backgroundEdges,
            writer, changes, changeWriter, inverseEntries, clock));
    this.drain = settings.drainCoordination() == null ? null
        : new OutboxDrain(vertx, settings.drainCoordination(), backgroundRouter, client, schemas,
            new OutboxHandlers(writer, new Cascades(backgroundStore, schemas), unique::release), settings.applier(),
            settings.changeLog(), clock,
            settings.serverId(), PoolSettings.BACKGROUND_MAX_SIZE,
            new TailedChanges(schemas, new ChangeWriter(true, schemas, clock)), writer, settings.pools().user(),
            settings.pools().password());
    TailBarrier tails = settings.changeLog().tailed() ? new TailBarrier(vertx, backgroundRouter, client, clock) : null;
    this.repairs = new BackendRepairs(new InverseRepair(backgroundRouter, client, schemas, writer, tails),
        new UniqueRepair(backgroundRouter, client, unique),
        new OutboxRetry(backgroundRouter, client, clock, this::outboxWritten), tails);
    this.telemetry = new Telemetry();
    this.changeLog = new ChangeReader(router, client);
    this.changeGroups = new ZkChangeGroups(vertx, paths == null ? null : paths.curator(),
        paths == null ? null : paths.changeGroupsPath(), () -> router.shardMap().allShards());
    // Every committed change wakes its host's drainer, which numbers the change in the log at once
    // (written from the binary log, the change needs no numbering: the host's tailer reads it).
    if (drain != null && settings.changeLog().writtenByWrites()) {
      changes.subscribe(this::wakeSequencer);
    }

    settings.shardMaps().onChange(this::follow);
    if (drain != null) {
      drain.follow(initial);
    }
  }

  /** A change committed on a shard: its host's drainer numbers it in the log ({@code ChangeSequencer}). */
  private void wakeSequencer(GraphChange change) {
    outboxWritten(shardOf(change));
  }

  /** The shard a change was made on: its node's, or its list's FROM node's. */
  private static int shardOf(GraphChange change) {
    return change instanceof GraphChange.NodeChange node ? node.id().shard()
        : ((GraphChange.ListChange) change).from().shard();
  }

  /** A write committed an outbox entry on {@code shard}: its drainer, if this server runs it, passes now. */
  private void outboxWritten(int shard) {
    if (drain != null) {
      drain.wake(shard);
    }
  }

  private void follow(ShardMap map) {
    health.apply(map);
    replicaLag.apply(map);
    router.apply(map);
    backgroundRouter.apply(map);
    mapWrites.evaluate();
    if (drain != null) {
      drain.follow(map);
    }
  }

  @Override
  public GraphStore store() {
    return store;
  }

  @Override
  public ChangeFeed changes() {
    return changes;
  }

  @Override
  public ChangeLog changeLog() {
    return changeLog;
  }

  @Override
  public ChangeGroups changeGroups() {
    return changeGroups;
  }

  @Override
  public StoreTelemetry telemetry() {
    return telemetry;
  }

  @Override
  public Repairs repairs() {
    return repairs;
  }

  @Override
  public Future<BulkImport> bulkImport(String name) {
    return imports.apply(name);
  }

  @Override
  public ShardMap shardMap() {
    return router.shardMap();
  }

  /**
   * A change to a node may have left a cascade or a unique release; a change to an edge list only
   * an inverse, so only a type with an inverse wakes the drainer.
   */
  @Override
  public void committedElsewhere(GraphChange change) {
    if (change instanceof GraphChange.NodeChange || change instanceof GraphChange.ListChange list
        && schemas.current().edgeType(list.edgeType()).map(type -> type.inverse() != null).orElse(false)) {
      outboxWritten(shardOf(change));
    }
  }

  @Override
  public Future<Void> close() {
    for (ServedVersions registration : new ServedVersions[] {served, mapServed}) {
      if (registration != null) {
        try {
          registration.close();
        } catch (Exception ignored) {
          // The ephemeral znode goes with the session anyway.
        }
      }
    }
    Future<Void> drained = drain == null ? Future.succeededFuture() : drain.close();
    return drained.compose(stopped -> Future.join(List.of(requestPools.close(), backgroundPools.close(),
        health.close(), replicaLag.close())))
        .mapEmpty();
  }

  private final class Telemetry implements StoreTelemetry {
    @Override
    public long nodeReadQueries() {
      return store.nodes().readQueries();
    }

    @Override
    public long edgeReadQueries() {
      return store.edges().readQueries();
    }

    @Override
    public Map<String, Integer> poolSizes() {
      Map<String, Integer> sizes = new LinkedHashMap<>();
      router.pools().forEach((host, pool) -> sizes.put(host, pool.size()));
      return sizes;
    }

    @Override
    public Future<Map<String, OutboxStats>> outboxStats() {
      return drain == null ? Future.succeededFuture(Map.of()) : drain.stats();
    }

    @Override
    public Map<String, Boolean> hostsAnswering() {
      return health.answering();
    }

    @Override
    public Map<String, String> hostProblems() {
      return health.problems();
    }

    @Override
    public Map<String, Map<String, Long>> replicaLags() {
      return replicaLag.lags();
    }

    @Override
    public ReplicaReadFigures replicaReads() {
      return new ReplicaReadFigures(client.replicaAnswers(), client.hedgesSent());
    }

    @Override
    public long clientWriteTransactions() {
      return groups.transactions();
    }

    @Override
    public long clientWrites() {
      return groups.writes();
    }
  }
}
