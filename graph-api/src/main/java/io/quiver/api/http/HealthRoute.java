package io.quiver.api.http;

import io.quiver.store.StoreTelemetry;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /health}: 200 when every host and ZooKeeper answer, else 503 naming the failing parts.
 *
 * <p>The hosts are probed ({@code SELECT 1} on each pool) at most once per {@link #PROBE_EVERY}
 * however often health is asked: a load balancer polling every few milliseconds, or many of
 * them, must not become a load on MySQL. Callers within that time get the last probe's answer;
 * the first caller after it starts the next probe, and the callers meanwhile share it. Each event
 * loop has its own route (and so its own probe), so an answer never crosses threads.
 */
public final class HealthRoute {
  /** How long one probe of the hosts answers for. */
  public static final Duration PROBE_EVERY = Duration.ofSeconds(1);

  private final StoreTelemetry telemetry;
  private final BooleanSupplier zooKeeper;
  private final Clock clock;
  private Probe last;

  private record Probe(Instant started, Future<Map<String, Boolean>> hosts) {}

  public HealthRoute(StoreTelemetry telemetry, BooleanSupplier zooKeeper, Clock clock) {
    this.telemetry = telemetry;
    this.zooKeeper = zooKeeper;
    this.clock = clock;
  }

  public void mount(Router router) {
    RequestObserver.operation(router.get("/health"), "health").respond(ctx -> hosts().map(hosts -> {
      boolean zooKeeperUp = zooKeeper.getAsBoolean();
      boolean healthy = zooKeeperUp && !hosts.containsValue(false);
      ctx.response().setStatusCode(healthy ? 200 : 503).putHeader("Content-Type", ApiJson.CONTENT_TYPE);
      return ApiJson.render(out -> {
        out.writeStartObject();
        out.writeStringField("status", healthy ? "ok" : "failing");
        out.writeStringField("zookeeper", zooKeeperUp ? "up" : "down");
        out.writeObjectFieldStart("hosts");
        for (Map.Entry<String, Boolean> host : hosts.entrySet()) {
          out.writeStringField(host.getKey(), host.getValue() ? "up" : "down");
        }
        out.writeEndObject();
        out.writeEndObject();
      });
    }));
  }

  /** The last probe's answer while it is fresh, else a new probe's (begun once for all callers). */
  Future<Map<String, Boolean>> hosts() {
    Instant now = clock.instant();
    if (last == null || !now.isBefore(last.started().plus(PROBE_EVERY))) {
      last = new Probe(now, telemetry.checkHosts());
    }
    return last.hosts();
  }
}
