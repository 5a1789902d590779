package io.quiver.api.http;

import io.quiver.cache.CacheFigures;
import io.quiver.fleet.AdminService;
import io.quiver.schema.SchemaSource;
import io.quiver.store.OutboxStats;
import io.quiver.store.StoreTelemetry;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What an operator looks at first ({@code GET /v1/admin/status}, {@code quiver status}): every
 * host of the shard map with whether it answers, its shards, its pool and its outbox; the shard
 * map's and the schema's versions; ZooKeeper; and each cache's figures. Host health and pool sizes
 * are read without a query; the map comes from ZooKeeper and the outbox depths from one statement
 * per shard, both off the event loop.
 */
public final class ServerStatus {
  private final AdminService admin;
  private final StoreTelemetry telemetry;
  private final SchemaSource schemas;
  private final Supplier<List<CacheFigures>> caches;
  private final BooleanSupplier zooKeeper;

  public ServerStatus(AdminService admin, StoreTelemetry telemetry, SchemaSource schemas,
      Supplier<List<CacheFigures>> caches, BooleanSupplier zooKeeper) {
    this.admin = admin;
    this.telemetry = telemetry;
    this.schemas = schemas;
    this.caches = caches;
    this.zooKeeper = zooKeeper;
  }

  /** The status; outbox figures are those of the hosts this server drains. */
  public Future<StatusReport> read() {
    return admin.shardMap()
        .compose(map -> telemetry.outboxStats().map(outboxes -> report(map, outboxes)));
  }

  private StatusReport report(ShardMap map, Map<String, OutboxStats> outboxes) {
    Map<String, String> states = telemetry.hostStates();
    Map<String, String> problems = telemetry.hostProblems();
    Map<String, Integer> pools = telemetry.poolSizes();
    Map<String, Map<String, Long>> lags = telemetry.replicaLags();
    List<StatusReport.HostStatus> hosts = map.hosts().values().stream()
        .sorted((a, b) -> a.name().compareTo(b.name()))
        .map(host -> {
          OutboxStats drained = outboxes.get(host.name());
          int shards = map.shardsOn(host.name()).size();
          // Not drained by this server, or its host did not answer in time: unknown, never left out.
          StatusReport.OutboxStatus outbox = drained != null
              ? StatusReport.OutboxStatus.of(drained.pending(), drained.parked(), drained.oldestPendingAgeMillis())
              : shards > 0 ? StatusReport.OutboxStatus.UNKNOWN : null;
          // unknown: a host this server has not probed yet (just added to the map)
          return new StatusReport.HostStatus(host.name(), host.primary(), host.replicas(),
              lags.getOrDefault(host.name(), Map.of()), states.getOrDefault(host.name(), "unknown"),
              problems.get(host.name()), shards, pools.getOrDefault(host.name(), 0), outbox);
        })
        .toList();
    List<StatusReport.CacheStatus> caches = this.caches.get().stream()
        .map(figures -> new StatusReport.CacheStatus(figures.cache(), figures.hits(), figures.misses(),
            Math.round(figures.hitRatio() * 10_000) / 10_000.0, figures.entries(), figures.weightBytes(),
            figures.evictions()))
        .toList();
    return new StatusReport(map.version(), schemas.current().version(), zooKeeper.getAsBoolean(), hosts, caches);
  }
}
