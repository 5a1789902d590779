package io.quiver.store;

import io.vertx.core.Vertx;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What a Vert.x instance of Quiver's does with an exception no handler took: logged at ERROR, as
 * Vert.x does itself — except one known to be harmless. The SQL client's pool can complete a
 * waiter's acquisition twice when its acquire timeout fires as the acquisition ends (a failed
 * connect to a host that just died, say): the request was already answered, and the second
 * completion only throws "Promise already completed" into the context
 * (eclipse-vertx/vertx-sql-client#1567). #1620, which 5.0.10 has, closed the common path, but it
 * still appears under heavy waiting; and #1620 opened the opposite fault, a waiter answered by
 * neither path, which {@code ShardClient} bounds with a deadline of its own. Logged at ERROR it
 * reads as a failure in every failover; it is logged at DEBUG.
 * It lives in graph-store, the one module that knows the SQL client.
 */
public final class UnhandledErrors {
  private static final Logger log = LoggerFactory.getLogger(UnhandledErrors.class);

  private UnhandledErrors() {}

  /** Makes {@code vertx} report the exceptions no handler took through {@link #report}. */
  public static Vertx install(Vertx vertx) {
    vertx.exceptionHandler(UnhandledErrors::report);
    return vertx;
  }

  static void report(Throwable failure) {
    if (poolCompletedTwice(failure)) {
      log.debug("the SQL pool completed an acquisition twice (vertx-sql-client#1567); the request was answered",
          failure);
      return;
    }
    log.error("unhandled exception", failure);
  }

  /** Whether {@code failure} is the SQL pool's second completion of one acquisition. */
  static boolean poolCompletedTwice(Throwable failure) {
    if (!(failure instanceof IllegalStateException) || !"Promise already completed".equals(failure.getMessage())) {
      return false;
    }
    for (StackTraceElement frame : failure.getStackTrace()) {
      if (frame.getClassName().startsWith("io.vertx.sqlclient.impl.pool.SqlConnectionPool")) {
        return true;
      }
    }
    return false;
  }
}
