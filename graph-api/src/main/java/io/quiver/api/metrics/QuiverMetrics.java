package io.quiver.api.metrics;

import io.micrometer.core.instrument.FunctionCounter;
import io.micrometer.core.instrument.MultiGauge;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.binder.jvm.JvmMemoryMetrics;
import io.micrometer.core.instrument.binder.jvm.JvmThreadMetrics;
import io.micrometer.core.instrument.binder.system.ProcessorMetrics;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.quiver.cache.CacheFigures;
import io.quiver.cache.CachingGraphStore;
import io.quiver.store.OutboxStats;
import io.quiver.store.StoreTelemetry;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.ToDoubleFunction;

/**
 * One server's meters. Outbox figures are reported per host by the server that drains it (the
 * holder of the host's lease), so summing a metric over all servers counts each host once.
 */
public final class QuiverMetrics {
  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);
  private final StoreTelemetry telemetry;
  private final MultiGauge pending;
  private final MultiGauge parked;
  private final MultiGauge oldestAge;
  private final MultiGauge changeLogLag;
  private final MultiGauge poolSize;
  private final MultiGauge replicas;
  private final MultiGauge degraded;
  private final MultiGauge replicaLag;
  private final java.util.function.Supplier<io.quiver.store.shard.ShardMap> shardMap;
  private final CachingGraphStore cache;

  /**
   * @param shardMap the map the server routes by, for each host's replicas
   * @param cache the server's cache; null when it runs without one
   */
  public QuiverMetrics(StoreTelemetry telemetry, java.util.function.Supplier<io.quiver.store.shard.ShardMap> shardMap,
      CachingGraphStore cache) {
    this.telemetry = telemetry;
    this.shardMap = shardMap;
    this.cache = cache;
    this.pending = MultiGauge.builder("quiver.outbox.pending")
        .description("inverse operations waiting in the outboxes of a host's shards").register(registry);
    this.parked = MultiGauge.builder("quiver.outbox.parked")
        .description("outbox entries set aside after repeated failures").register(registry);
    this.oldestAge = MultiGauge.builder("quiver.outbox.oldest.pending.age").baseUnit("seconds")
        .description("age of the oldest pending outbox entry of a host").register(registry);
    this.changeLogLag = MultiGauge.builder("quiver.changes.lag").baseUnit("seconds")
        .description("age of the oldest committed change of a host not yet numbered in its change log, so not yet"
            + " readable by consumers; 0 when every change is").register(registry);
    this.poolSize = MultiGauge.builder("quiver.pool.connections")
        .description("connections open in a host's pool").register(registry);
    this.replicas = MultiGauge.builder("quiver.host.replicas")
        .description("replicas the shard map lists for a host (each confirms its writes)").register(registry);
    this.degraded = MultiGauge.builder("quiver.host.degraded")
        .description("1 while a host is degraded (commits stall, binary log off, no replica confirms), else 0")
        .register(registry);
    this.replicaLag = MultiGauge.builder("quiver.replica.lag").baseUnit("seconds")
        .description("how far a replica is behind its primary, as this server measures it (-1 while unknown): a read it"
            + " answers reflects every write acknowledged before this long ago").register(registry);
    FunctionCounter.builder("quiver.replica.reads", telemetry, t -> t.replicaReads().answeredByReplica())
        .description("stale-tolerant reads a replica answered (the primary down, or a hedge that won)").register(registry);
    FunctionCounter.builder("quiver.hedged.reads", telemetry, t -> t.replicaReads().hedged())
        .description("stale-tolerant reads also sent to a replica because the primary was slow or failed")
        .register(registry);
    FunctionCounter.builder("quiver.node.read.queries", telemetry, StoreTelemetry::nodeReadQueries)
        .description("node read statements sent to MySQL").register(registry);
    FunctionCounter.builder("quiver.client.writes", telemetry, StoreTelemetry::clientWrites)
        .description("client writes committed in groups: edge writes, and updates of nodes without unique fields")
        .register(registry);
    FunctionCounter.builder("quiver.client.write.transactions", telemetry, StoreTelemetry::clientWriteTransactions)
        .description("transactions client writes ran in: a host's writes that wait while its transactions are"
            + " busy commit together, so writes over transactions is the mean group").register(registry);
    if (cache != null) {
      registerCacheMeters(cache);
    }
    new JvmMemoryMetrics().bindTo(registry);
    new JvmThreadMetrics().bindTo(registry);
    new ProcessorMetrics().bindTo(registry);
  }

  /** Each cache's figures now; none when the server runs without a cache. */
  public java.util.List<CacheFigures> cacheFigures() {
    return cache == null ? java.util.List.of() : cache.figures();
  }

  private void registerCacheMeters(CachingGraphStore caching) {
    for (CacheFigures figures : caching.figures()) {
      String name = figures.cache();
      Tags tags = Tags.of("cache", name);
      ToDoubleFunction<CachingGraphStore> hits = c -> figuresOf(c, name).hits();
      FunctionCounter.builder("quiver.cache.hits", caching, hits).tags(tags).register(registry);
      FunctionCounter.builder("quiver.cache.misses", caching, c -> figuresOf(c, name).misses()).tags(tags).register(registry);
      FunctionCounter.builder("quiver.cache.evictions", caching, c -> figuresOf(c, name).evictions()).tags(tags)
          .register(registry);
      io.micrometer.core.instrument.Gauge.builder("quiver.cache.hit.ratio", caching, c -> figuresOf(c, name).hitRatio())
          .tags(tags).register(registry);
      io.micrometer.core.instrument.Gauge.builder("quiver.cache.weight", caching, c -> figuresOf(c, name).weightBytes())
          .baseUnit("bytes").tags(tags).register(registry);
      io.micrometer.core.instrument.Gauge.builder("quiver.cache.entries", caching, c -> figuresOf(c, name).entries())
          .tags(tags).register(registry);
    }
    FunctionCounter.builder("quiver.cache.invalidations.sent", caching, c -> c.figures().get(0).invalidationsSent())
        .register(registry);
    FunctionCounter.builder("quiver.cache.invalidations.received", caching,
        c -> c.figures().get(0).invalidationsReceived()).register(registry);
  }

  private static CacheFigures figuresOf(CachingGraphStore caching, String name) {
    return caching.figures().stream().filter(f -> f.cache().equals(name)).findFirst().orElseThrow();
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  /** The Prometheus text exposition, with the outbox figures measured now (only a scrape measures them). */
  public Future<String> scrape() {
    return telemetry.outboxStats().map(this::scrape);
  }

  private String scrape(Map<String, OutboxStats> stats) {
    pending.register(rows(stats, OutboxStats::pending), true);
    parked.register(rows(stats, OutboxStats::parked), true);
    oldestAge.register(rows(stats, s -> s.oldestPendingAgeMillis() / 1000.0), true);
    changeLogLag.register(rows(stats, s -> s.changeLogLagMillis() / 1000.0), true);
    List<MultiGauge.Row<?>> pools = new ArrayList<>();
    telemetry.poolSizes().forEach((host, size) -> pools.add(MultiGauge.Row.of(Tags.of("host", host), size)));
    poolSize.register(pools, true);
    List<MultiGauge.Row<?>> listed = new ArrayList<>();
    List<MultiGauge.Row<?>> degradedRows = new ArrayList<>();
    Map<String, String> problems = telemetry.hostProblems();
    shardMap.get().hosts().forEach((name, host) -> {
      listed.add(MultiGauge.Row.of(Tags.of("host", name), host.replicas().size()));
      String problem = problems.get(name);
      degradedRows.add(MultiGauge.Row.of(Tags.of("host", name), problem != null && problem.startsWith("degraded") ? 1 : 0));
    });
    replicas.register(listed, true);
    degraded.register(degradedRows, true);
    List<MultiGauge.Row<?>> lags = new ArrayList<>();
    telemetry.replicaLags().forEach((host, each) -> each.forEach((replica, lagMs) ->
        lags.add(MultiGauge.Row.of(Tags.of("host", host, "replica", replica), lagMs < 0 ? -1 : lagMs / 1000.0))));
    replicaLag.register(lags, true);
    return registry.scrape();
  }

  private static List<MultiGauge.Row<?>> rows(Map<String, OutboxStats> stats, ToDoubleFunction<OutboxStats> value) {
    List<MultiGauge.Row<?>> rows = new ArrayList<>();
    stats.forEach((host, figures) -> rows.add(MultiGauge.Row.of(Tags.of("host", host), value.applyAsDouble(figures))));
    return rows;
  }
}
