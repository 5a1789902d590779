package io.quiver.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.cache.CacheFigures;
import io.quiver.schema.SchemaSource;
import io.quiver.store.AdminService;
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

  /** The status document; outbox figures are those of the hosts this server drains. */
  public Future<ObjectNode> read() {
    return admin.shardMap()
        .compose(map -> telemetry.outboxStats().map(outboxes -> document(map, outboxes)));
  }

  private ObjectNode document(ShardMap map, Map<String, OutboxStats> outboxes) {
    ObjectNode status = ApiJson.object();
    status.put("shardMapVersion", map.version());
    status.put("schemaVersion", schemas.current().version());
    status.put("zookeeper", zooKeeper.getAsBoolean() ? "up" : "down");
    Map<String, String> states = telemetry.hostStates();
    Map<String, String> problems = telemetry.hostProblems();
    Map<String, Integer> pools = telemetry.poolSizes();
    ObjectNode hosts = status.putObject("hosts");
    map.hosts().values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(host -> {
      ObjectNode entry = hosts.putObject(host.name());
      entry.put("primary", host.primary());
      // unknown: a host this server has not probed yet (just added to the map)
      entry.put("state", states.getOrDefault(host.name(), "unknown"));
      if (problems.containsKey(host.name())) {
        entry.put("problem", problems.get(host.name()));
      }
      entry.put("shards", map.shardsOn(host.name()).size());
      entry.put("poolConnections", pools.getOrDefault(host.name(), 0));
      OutboxStats outbox = outboxes.get(host.name());
      if (outbox != null) {
        entry.putObject("outbox").put("pending", outbox.pending()).put("parked", outbox.parked())
            .put("oldestPendingAgeMs", outbox.oldestPendingAgeMillis());
      } else if (!map.shardsOn(host.name()).isEmpty()) {
        // Not drained by this server, or its host did not answer in time: unknown, never left out.
        entry.put("outbox", "unknown");
      }
    });
    var cacheList = status.putArray("caches");
    for (CacheFigures figures : caches.get()) {
      cacheList.addObject().put("cache", figures.cache()).put("hits", figures.hits()).put("misses", figures.misses())
          .put("hitRatio", Math.round(figures.hitRatio() * 10_000) / 10_000.0).put("entries", figures.entries())
          .put("weightBytes", figures.weightBytes()).put("evictions", figures.evictions());
    }
    return status;
  }
}
