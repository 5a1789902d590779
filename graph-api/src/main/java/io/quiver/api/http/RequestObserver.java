package io.quiver.api.http;

import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Route;
import io.vertx.ext.web.RoutingContext;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches every request: its latency into a histogram per operation and status
 * ({@code quiver_requests_seconds}), and one JSON line in the access log (logger
 * {@code io.quiver.access}), buffered per event loop ({@link AccessLog}). One instance per event
 * loop's router.
 */
public final class RequestObserver implements Handler<RoutingContext> {
  private static final Logger access = LoggerFactory.getLogger("io.quiver.access");
  private static final String OPERATION = "quiver.operation";
  private static final int FIRST_STATUS = 100;
  private static final int STATUSES = 500;

  private final MeterRegistry registry;
  /**
   * By operation, then status less {@link #FIRST_STATUS}: looked up on every request without
   * building or boxing a key. Touched only from this instance's event loop.
   */
  private final Map<String, Timer[]> timers = new HashMap<>();
  private final AccessLog log = new AccessLog(access::info);
  /** Each line's time, from the {@code nanoTime} its request ended at. */
  private final AnchoredClock clock;

  /**
   * Flushes its access log on {@code vertx}'s timer, from the calling verticle's context, and
   * takes {@code clock}'s time again on the same timer.
   */
  public RequestObserver(Vertx vertx, MeterRegistry registry, Clock clock) {
    this.registry = registry;
    this.clock = new AnchoredClock(clock, System.nanoTime());
    vertx.setPeriodic(AccessLog.FLUSH_EVERY.toMillis(), timer -> {
      log.flush();
      this.clock.anchor(System.nanoTime());
    });
  }

  /** Names the operation a route serves, for the metrics and the access log. */
  public static Route operation(Route route, String name) {
    return route.setName(name).handler(ctx -> {
      named(ctx, name);
      ctx.next();
    });
  }

  /** Records which operation serves the request, for the metrics and the access log. */
  static void named(RoutingContext ctx, String operation) {
    ctx.put(OPERATION, operation);
  }

  @Override
  public void handle(RoutingContext ctx) {
    long started = System.nanoTime();
    ctx.addEndHandler(ended -> observe(ctx, started, System.nanoTime()));
    ctx.next();
  }

  /** Writes out the access lines gathered so far (when the server stops). */
  public void flush() {
    log.flush();
  }

  private void observe(RoutingContext ctx, long started, long ended) {
    long nanos = ended - started;
    String operation = ctx.get(OPERATION, "unmatched");
    int status = ctx.response().getStatusCode();
    timer(operation, status).record(nanos, TimeUnit.NANOSECONDS);
    if (access.isInfoEnabled()) {
      log.append(clock.at(ended), ctx.request().method().name(), ctx.request().path(), operation, status, nanos,
          ctx.response().bytesWritten(), String.valueOf(ctx.request().connection().remoteAddress()));
    }
  }

  /**
   * The timer of {@code operation} answered with {@code status}. A status outside 100-599 (which
   * Vert.x does not send) is looked up in the registry each time. The registry hands every event
   * loop's instance the same timer for the same tags.
   */
  private Timer timer(String operation, int status) {
    int index = status - FIRST_STATUS;
    if (index < 0 || index >= STATUSES) {
      return register(operation, status);
    }
    Timer[] byStatus = timers.computeIfAbsent(operation, name -> new Timer[STATUSES]);
    Timer timer = byStatus[index];
    if (timer == null) {
      timer = register(operation, status);
      byStatus[index] = timer;
    }
    return timer;
  }

  private Timer register(String operation, int status) {
    return Timer.builder("quiver.requests")
        .description("requests served, by operation and status")
        .tag("operation", operation)
        .tag("status", Integer.toString(status))
        .publishPercentileHistogram()
        .register(registry);
  }
}
