package io.quiver.api.http;

import io.quiver.api.metrics.QuiverMetrics;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.Router;

/** {@code GET /metrics}: the Prometheus text exposition; and {@code GET /openapi.json}, this API's contract. */
public final class OperationsRoutes {
  private final QuiverMetrics metrics;

  public OperationsRoutes(QuiverMetrics metrics) {
    this.metrics = metrics;
  }

  private static final Buffer OPENAPI = openApiDocument();

  private static Buffer openApiDocument() {
    try (java.io.InputStream in = OperationsRoutes.class.getResourceAsStream("openapi.json")) {
      return Buffer.buffer(in.readAllBytes());
    } catch (java.io.IOException | NullPointerException e) {
      throw new IllegalStateException("the OpenAPI document is missing from the build", e);
    }
  }

  public void mount(Router router) {
    RequestObserver.operation(router.get("/openapi.json"), "openapi").respond(ctx -> {
      ctx.response().putHeader("Content-Type", ApiJson.CONTENT_TYPE);
      return io.vertx.core.Future.succeededFuture(OPENAPI);
    });
    RequestObserver.operation(router.get("/metrics"), "metrics").respond(ctx -> {
      ctx.response().putHeader("Content-Type", "text/plain; version=0.0.4; charset=utf-8");
      return metrics.scrape().map(Buffer::buffer);
    });
  }
}
