package io.quiver.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Handler;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every request: its latency into a histogram per operation and status
 * ({@code quiver_requests_seconds}), and one structured access-log line (logger
 * {@code io.quiver.access}, a JSON object per line).
 */
public final class RequestObserver implements Handler<RoutingContext> {
  private static final Logger access = LoggerFactory.getLogger("io.quiver.access");
  private static final String OPERATION = "quiver.operation";

  private final MeterRegistry registry;
  private final Map<List<String>, Timer> timers = new ConcurrentHashMap<>();

  public RequestObserver(MeterRegistry registry) {
    this.registry = registry;
  }

  /** Names the operation a route serves, for the metrics and the access log. */
  public static Route operation(Route route, String name) {
    return route.setName(name).handler(ctx -> {
      ctx.put(OPERATION, name);
      ctx.next();
    });
  }

  @Override
  public void handle(RoutingContext ctx) {
    long started = System.nanoTime();
    ctx.addEndHandler(ended -> observe(ctx, System.nanoTime() - started));
    ctx.next();
  }

  private void observe(RoutingContext ctx, long nanos) {
    String operation = ctx.get(OPERATION, "unmatched");
    int status = ctx.response().getStatusCode();
    timer(operation, status).record(Duration.ofNanos(nanos));
    if (access.isInfoEnabled()) {
      ObjectNode line = ApiJson.object();
      line.put("method", ctx.request().method().name());
      line.put("path", ctx.request().path());
      line.put("operation", operation);
      line.put("status", status);
      line.put("ms", nanos / 1_000_000.0);
      line.put("bytesOut", ctx.response().bytesWritten());
      line.put("remote", String.valueOf(ctx.request().remoteAddress()));
      access.info(line.toString());
    }
  }

  private Timer timer(String operation, int status) {
    return timers.computeIfAbsent(List.of(operation, Integer.toString(status)), key -> Timer.builder("quiver.requests")
        .description("requests served, by operation and status")
        .tag("operation", operation)
        .tag("status", key.get(1))
        .publishPercentileHistogram()
        .register(registry));
  }
}
