package io.quiver.api.http;

import io.quiver.store.StoreTelemetry;
import io.vertx.core.Future;
import io.vertx.ext.web.Router;
import java.util.Map;
import java.util.function.BooleanSupplier;

/**
 * {@code GET /health}: 200 when every host and ZooKeeper answer, else 503 naming the failing parts:
 * each host {@code up}, {@code down} or {@code degraded} (it answers, but its COMMITs stall, as on a
 * full disk), and under {@code problems} why, for each host that is not up.
 *
 * <p>It asks nothing of its own: the backend keeps a probe on every host
 * ({@link StoreTelemetry#hostsAnswering()}) and the ZooKeeper client knows its connection, so
 * health answers at once whatever the hosts do — a frozen host included — and a load balancer
 * polling every few milliseconds costs MySQL nothing.
 */
public final class HealthRoute {
  private final StoreTelemetry telemetry;
  private final BooleanSupplier zooKeeper;

  public HealthRoute(StoreTelemetry telemetry, BooleanSupplier zooKeeper) {
    this.telemetry = telemetry;
    this.zooKeeper = zooKeeper;
  }

  public void mount(Router router) {
    RequestObserver.operation(router.get("/health"), "health").respond(ctx -> {
      Map<String, String> hosts = telemetry.hostStates();
      Map<String, String> problems = telemetry.hostProblems();
      boolean zooKeeperUp = zooKeeper.getAsBoolean();
      // Every host that is down or degraded has a problem.
      boolean healthy = zooKeeperUp && problems.isEmpty();
      ctx.response().setStatusCode(healthy ? 200 : 503).putHeader("Content-Type", ApiJson.CONTENT_TYPE);
      return Future.succeededFuture(ApiJson.render(out -> {
        out.writeStartObject();
        out.writeStringField("status", healthy ? "ok" : "failing");
        out.writeStringField("zookeeper", zooKeeperUp ? "up" : "down");
        out.writeObjectFieldStart("hosts");
        for (Map.Entry<String, String> host : hosts.entrySet()) {
          out.writeStringField(host.getKey(), host.getValue());
        }
        out.writeEndObject();
        if (!problems.isEmpty()) {
          out.writeObjectFieldStart("problems");
          for (Map.Entry<String, String> problem : problems.entrySet()) {
            out.writeStringField(problem.getKey(), problem.getValue());
          }
          out.writeEndObject();
        }
        out.writeEndObject();
      }));
    });
  }
}
