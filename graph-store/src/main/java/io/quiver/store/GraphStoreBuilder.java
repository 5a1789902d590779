package io.quiver.store;

import io.quiver.schema.SchemaSource;
import io.quiver.store.internal.DefaultBackend;
import io.quiver.store.shard.ShardMapSource;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;

/**
 * Assembles a {@link GraphBackend}. Pools, shard maps and schemas are required. Without
 * {@link #drainOutboxes} the backend writes outbox entries but this process drains none (a
 * command-line tool, say); without {@link #registry} it acknowledges no schema or shard-map
 * version (the fences a fleet change waits behind) and cannot run bulk imports under a name held
 * across servers.
 */
public final class GraphStoreBuilder {
  private final Vertx vertx;
  private PoolSettings pools;
  private ShardMapSource shardMaps;
  private SchemaSource schemas;
  private CuratorFramework drainCoordination;
  private ApplierSettings applier = ApplierSettings.defaults();
  private ReplicaReadSettings replicaReads = ReplicaReadSettings.defaults();
  private ChangeLogSettings changeLog = ChangeLogSettings.defaults();
  private ReadTokenSettings readTokens = ReadTokenSettings.defaults();
  private RegistryPaths registry;
  private Clock clock = Clock.systemUTC();
  private String serverId = UUID.randomUUID().toString();

  /**
   * Where the shard map and the schema documents live in ZooKeeper, and the paths beside them: the
   * versions each backend acknowledges (the acknowledging side of the fleet's fences), bulk
   * imports' names, and a shard move's state (the fleet module's).
   */
  public record RegistryPaths(CuratorFramework curator, String shardMapPath, String schemaPath) {
    public RegistryPaths {
      Objects.requireNonNull(curator, "curator");
      Objects.requireNonNull(shardMapPath, "shardMapPath");
      Objects.requireNonNull(schemaPath, "schemaPath");
    }

    /**
     * Where every backend acknowledges the schema version it serves ({@code <schemaPath>-served},
     * one ephemeral znode each): the fence a unique index's build waits behind.
     */
    public String servedPath() {
      return schemaPath + "-served";
    }

    /**
     * Where every backend acknowledges the shard-map version it writes under ({@code
     * <shardMapPath>-served}, one ephemeral znode each): the fence a shard move's cut-over waits behind.
     */
    public String mapServedPath() {
      return shardMapPath + "-served";
    }

    /** Where a shard move keeps its state ({@code <shardMapPath>-move}) and its runner's lease ({@code …-move-runner}). */
    public String movePath() {
      return shardMapPath + "-move";
    }

    /**
     * Where the change log's consumer groups keep their members and committed positions ({@code
     * <shardMapPath>-change-groups}, a directory per group).
     */
    public String changeGroupsPath() {
      return shardMapPath + "-change-groups";
    }

    /** Where running bulk imports hold their names ({@code <schemaPath>-imports}, one ephemeral znode each). */
    public String importsPath() {
      return schemaPath + "-imports";
    }
  }

  GraphStoreBuilder(Vertx vertx) {
    this.vertx = Objects.requireNonNull(vertx, "vertx");
  }

  public GraphStoreBuilder pools(PoolSettings settings) {
    this.pools = settings;
    return this;
  }

  public GraphStoreBuilder shardMaps(ShardMapSource source) {
    this.shardMaps = source;
    return this;
  }

  public GraphStoreBuilder schemas(SchemaSource source) {
    this.schemas = source;
    return this;
  }

  /** Takes part in draining outboxes: one server per host at a time, coordinated in ZooKeeper. */
  public GraphStoreBuilder drainOutboxes(CuratorFramework coordination, ApplierSettings settings) {
    this.drainCoordination = Objects.requireNonNull(coordination, "coordination");
    this.applier = Objects.requireNonNull(settings, "settings");
    return this;
  }

  /** Acknowledges the versions this backend serves beside the documents, for the fleet's fences. */
  public GraphStoreBuilder registry(CuratorFramework curator, String shardMapPath, String schemaPath) {
    this.registry = new RegistryPaths(curator, shardMapPath, schemaPath);
    return this;
  }

  /** How stale-tolerant reads use replicas; {@link ReplicaReadSettings#defaults()} when not set. */
  public GraphStoreBuilder replicaReads(ReplicaReadSettings settings) {
    this.replicaReads = Objects.requireNonNull(settings, "settings");
    return this;
  }

  /** How reads carrying a read token wait for the writes it covers; {@link ReadTokenSettings#defaults()} when not set. */
  public GraphStoreBuilder readTokens(ReadTokenSettings settings) {
    this.readTokens = Objects.requireNonNull(settings, "settings");
    return this;
  }

  /** Whether and how long shards log their changes; {@link ChangeLogSettings#defaults()} when not set. */
  public GraphStoreBuilder changeLog(ChangeLogSettings settings) {
    this.changeLog = Objects.requireNonNull(settings, "settings");
    return this;
  }

  public GraphStoreBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /** How this server names itself in the outbox leases. */
  public GraphStoreBuilder serverId(String id) {
    this.serverId = Objects.requireNonNull(id, "id");
    return this;
  }

  public GraphBackend build() {
    return new DefaultBackend(vertx, new DefaultBackend.Settings(
        Objects.requireNonNull(pools, "pools"),
        Objects.requireNonNull(shardMaps, "shardMaps"),
        Objects.requireNonNull(schemas, "schemas"),
        drainCoordination, applier, registry, clock, serverId, replicaReads, changeLog, readTokens));
  }
}
