package io.quiver.http;

import io.quiver.metrics.QuiverMetrics;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;

/** {@code GET /metrics}: the Prometheus text exposition. */
public final class MetricsRoute {
  private final QuiverMetrics metrics;

  public MetricsRoute(QuiverMetrics metrics) {
    this.metrics = metrics;
  }

  public void mount(Router router) {
    router.get("/metrics").respond(ctx -> {
      ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      return io.vertx.core.Future.succeededFuture(Buffer.buffer(metrics.scrape()));
    });
  }
}
