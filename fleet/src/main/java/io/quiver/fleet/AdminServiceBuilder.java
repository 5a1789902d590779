package io.quiver.fleet;

import io.quiver.fleet.internal.DefaultAdminService;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.GraphStoreBuilder.RegistryPaths;
import io.quiver.store.PoolSettings;
import io.quiver.store.Repairs;
import io.quiver.store.shard.ShardMapSource;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;

/**
 * Assembles the in-process {@link AdminService}. The schema and shard-map sources and the pools'
 * account are required; without {@link #repairs} (a tool that only provisions) the repairs and
 * unique index builds are refused; without {@link #registry} the service can repair but not change
 * the schema or the shard map (a tool reaching the fleet with no ZooKeeper paths).
 */
public final class AdminServiceBuilder {
  private final Vertx vertx;
  private Repairs repairs;
  private SchemaSource schemas;
  private ShardMapSource shardMaps;
  private PoolSettings pools;
  private RegistryPaths registry;
  private ReplicaAcks acks = ReplicaAcks.defaults();
  private FailoverSettings failover = FailoverSettings.disabled();
  private ChangeLogSettings changeLog = ChangeLogSettings.defaults();
  private Clock clock = Clock.systemUTC();
  private String serverId = UUID.randomUUID().toString();

  AdminServiceBuilder(Vertx vertx) {
    this.vertx = Objects.requireNonNull(vertx, "vertx");
  }

  /** The scans of the backend this process runs ({@code GraphBackend.repairs()}). */
  public AdminServiceBuilder repairs(Repairs repairs) {
    this.repairs = repairs;
    return this;
  }

  /** The schema this process serves: a change is answered once it is served here. */
  public AdminServiceBuilder schemas(SchemaSource source) {
    this.schemas = source;
    return this;
  }

  /** The shard map this process routes by: a change is answered once it routes by it. */
  public AdminServiceBuilder shardMaps(ShardMapSource source) {
    this.shardMaps = source;
    return this;
  }

  /** The account provisioning and shard moves reach the hosts as (the servers' own). */
  public AdminServiceBuilder pools(PoolSettings settings) {
    this.pools = settings;
    return this;
  }

  /** Where the documents, the served versions and a move's state live in ZooKeeper. */
  public AdminServiceBuilder registry(CuratorFramework curator, String shardMapPath, String schemaPath) {
    this.registry = new RegistryPaths(curator, shardMapPath, schemaPath);
    return this;
  }

  /** What a write to a host with replicas waits for; {@link ReplicaAcks#defaults()} unless set. */
  public AdminServiceBuilder replicaAcks(ReplicaAcks acks) {
    this.acks = Objects.requireNonNull(acks, "acks");
    return this;
  }

  /**
   * Whether (and how) this process takes part in failing over silent primaries; a server's
   * configuration enables it, and it is {@link FailoverSettings#disabled()} unless set, so a tool
   * never coordinates one.
   */
  public AdminServiceBuilder failover(FailoverSettings settings) {
    this.failover = Objects.requireNonNull(settings, "settings");
    return this;
  }

  /**
   * How the servers' change log is written (default: by the writes). Written from the binary log
   * ({@link ChangeLogSettings.Source#BINARY_LOG}), a shard move's cut-over waits for the source's
   * tailer and a seeded replica for its primary's ({@link #repairs}, which both then need), and a
   * replica that does not log what it applies ({@code log_slave_updates}) is refused
   * (docs/operations.md, "The change log").
   */
  public AdminServiceBuilder changeLog(ChangeLogSettings settings) {
    this.changeLog = Objects.requireNonNull(settings, "settings");
    return this;
  }

  public AdminServiceBuilder clock(Clock clock) {
    this.clock = Objects.requireNonNull(clock, "clock");
    return this;
  }

  /** How this process names itself in a shard move's lease. */
  public AdminServiceBuilder serverId(String id) {
    this.serverId = Objects.requireNonNull(id, "id");
    return this;
  }

  public AdminService build() {
    return new DefaultAdminService(vertx, new DefaultAdminService.Settings(
        repairs,
        Objects.requireNonNull(schemas, "schemas"),
        Objects.requireNonNull(shardMaps, "shardMaps"),
        Objects.requireNonNull(pools, "pools"),
        registry, acks, failover, changeLog, clock, serverId));
  }
}
