package io.quiver.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.store.StoreTelemetry;
import io.vertx.ext.web.Router;
import java.util.function.BooleanSupplier;

/** {@code GET /health}: 200 when every host and ZooKeeper answer, else 503 naming the failing parts. */
public final class HealthRoute {
  private final StoreTelemetry telemetry;
  private final BooleanSupplier zooKeeper;

  public HealthRoute(StoreTelemetry telemetry, BooleanSupplier zooKeeper) {
    this.telemetry = telemetry;
    this.zooKeeper = zooKeeper;
  }

  public void mount(Router router) {
    RequestObserver.operation(router.get("/health"), "health").respond(ctx -> telemetry.checkHosts().map(hosts -> {
      boolean zooKeeperUp = zooKeeper.getAsBoolean();
      boolean healthy = zooKeeperUp && !hosts.containsValue(false);
      ObjectNode body = ApiJson.object().put("status", healthy ? "ok" : "failing");
      body.put("zookeeper", zooKeeperUp ? "up" : "down");
      ObjectNode hostStates = body.putObject("hosts");
      hosts.forEach((name, up) -> hostStates.put(name, up ? "up" : "down"));
      ctx.response().setStatusCode(healthy ? 200 : 503).putHeader("Content-Type", ApiJson.CONTENT_TYPE);
      return ApiJson.buffer(body);
    }));
  }
}
