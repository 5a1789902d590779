package io.quiver.api.http;

import io.vertx.core.Vertx;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.PlatformHandler;
import java.time.Duration;
import java.util.ArrayList;
import java.util.function.LongSupplier;

/**
 * The request timeout: a request still unanswered when its time is up fails with 503, and its
 * answer is the JSON error every other refusal has ({@link ApiErrors}).
 *
 * <p>vertx-web's {@code TimeoutHandler} starts a timer per request and cancels it at the answer:
 * each an insertion into and a removal from the event loop's queue of scheduled tasks, 5 % of a
 * cached read's time on the event loop (issue 37's profile). Here each event loop keeps the
 * requests it has started in a list, and one sweep every {@link #SWEEP} fails those past their
 * deadline and forgets those answered — as {@link SlowClients} keeps its header timeout, and as
 * nginx and Netty's {@code HashedWheelTimer} trade a timer's precision for its cost. A request
 * costs an entry in the list; a deadline is met within a sweep's period, which a timeout of
 * seconds does not notice. An answered request stays in the list until the next sweep at most.
 *
 * <p>Each entry learns of its request's end itself (a {@link Watch} the request's end handler
 * lets go of), so a sweep reads only its own small entries, laid out one after the other. Asking
 * each request's response whether it ended instead had cost 4 % of a cached read's time: a sweep
 * walks the five thousand requests an event loop starts in 100 ms, and reading each one's context
 * and response missed the processor's cache every time.
 *
 * <p>One instance per event loop's router, touched only from that event loop: the sweep runs on
 * the timer of the verticle that creates it. Mounted on several routes, it starts a request's
 * deadline once.
 */
public final class RequestDeadlines implements PlatformHandler {
  /** How often the deadlines are looked at: how late, at most, a request past its deadline is failed. */
  static final Duration SWEEP = Duration.ofMillis(100);
  private static final String STARTED = "quiver.deadline";

  private final long timeoutNanos;
  private final int status;
  private final LongSupplier nanoTime;
  /** The requests started since the last sweep, and those still unanswered before it, oldest first. */
  private ArrayList<Watch> started = new ArrayList<>();
  private ArrayList<Watch> kept = new ArrayList<>();

  /** A request under watch until its end lets go of it: touched only from its event loop. */
  private static final class Watch {
    private RoutingContext ctx;
    private final long deadline;

    Watch(RoutingContext ctx, long deadline) {
      this.ctx = ctx;
      this.deadline = deadline;
    }
  }

  /** Fails a request unanswered after {@code timeout} with {@code status}; sweeps on {@code vertx}'s timer. */
  public RequestDeadlines(Vertx vertx, Duration timeout, int status) {
    this(timeout, status, System::nanoTime);
    vertx.setPeriodic(SWEEP.toMillis(), tick -> sweep());
  }

  /** For tests: swept by hand ({@link #sweep}), with the time {@code nanoTime} tells. */
  RequestDeadlines(Duration timeout, int status, LongSupplier nanoTime) {
    this.timeoutNanos = timeout.toNanos();
    this.status = status;
    this.nanoTime = nanoTime;
  }

  @Override
  public void handle(RoutingContext ctx) {
    if (ctx.get(STARTED) == null) {
      Watch watch = new Watch(ctx, nanoTime.getAsLong() + timeoutNanos);
      ctx.put(STARTED, watch);
      ctx.addEndHandler(ended -> watch.ctx = null);
      started.add(watch);
    }
    ctx.next();
  }

  /** Fails the requests past their deadline and forgets the answered ones. */
  void sweep() {
    long now = nanoTime.getAsLong();
    ArrayList<Watch> still = kept;
    for (Watch each : started) {
      RoutingContext ctx = each.ctx;
      if (ctx == null) {
        continue;
      }
      if (now - each.deadline >= 0) {
        each.ctx = null;
        expire(ctx);
      } else {
        still.add(each);
      }
    }
    started.clear();
    kept = started;
    started = still;
  }

  /**
   * As vertx-web's timeout does: a request whose body is still coming is let go on, then failed.
   * One already failed is being answered by its failure handler. One ended or closed is let go
   * of by its end handler before this; the check stays for a route that sets the response's close
   * handler itself, which takes it from vertx-web's end handlers (the streamed calls do, and none
   * of them is watched today).
   */
  private void expire(RoutingContext ctx) {
    if (ctx.failed() || ctx.response().ended() || ctx.response().closed()) {
      return;
    }
    if (!ctx.request().isEnded()) {
      ctx.request().resume();
    }
    ctx.fail(status);
  }

  /** How many requests are watched: started since the last sweep, or unanswered before it. */
  int watched() {
    return started.size();
  }
}
