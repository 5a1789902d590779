package io.quiver.store;

import io.quiver.outbox.ApplierSettings;
import io.quiver.schema.SchemaSource;
import io.quiver.shard.ShardMapSource;
import io.quiver.sql.PoolSettings;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.Objects;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;

/**
 * Assembles a {@link GraphStore}. Pools, shard maps and schemas are required; without
 * {@link #drainOutboxes coordination} the store writes outbox entries but this process drains
 * none (a command-line tool, say).
 */
public final class GraphStoreBuilder {
  private final Vertx vertx;
  private PoolSettings pools;
  private ShardMapSource shardMaps;
  private SchemaSource schemas;
  private CuratorFramework curator;
  private ApplierSettings applier = ApplierSettings.defaults();
  private Clock clock = Clock.systemUTC();
  private String serverId = UUID.randomUUID().toString();

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
    this.curator = Objects.requireNonNull(coordination, "coordination");
    this.applier = Objects.requireNonNull(settings, "settings");
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

  public GraphStore build() {
    Objects.requireNonNull(pools, "pools");
    Objects.requireNonNull(shardMaps, "shardMaps");
    Objects.requireNonNull(schemas, "schemas");
    return new DefaultGraphStore(vertx, pools, shardMaps, schemas, curator, applier, clock, serverId);
  }
}
