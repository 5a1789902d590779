package io.quiver.api.http;

import io.vertx.core.Vertx;
import io.vertx.core.http.HttpConnection;
import io.vertx.core.http.HttpServerRequest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Closes kept-alive connections that wait for their next request head longer than the header
 * timeout, so a client that sends one request and then trickles the next a byte at a time
 * (slowloris) holds a connection for the timeout at most. The idle timeout, set on the server,
 * closes connections that go silent, mid-headers or not.
 *
 * <p>The first request of a connection is covered too: the server speaks HTTP/1.1 only, so Vert.x
 * hands each connection over when it is accepted (with h2c on, only once its first bytes had
 * decided the protocol), and its wait for a first request head starts then.
 *
 * <p>One per server, shared by the HTTP server instances of every event loop: a connection may be
 * accepted by one instance's handlers and swept by the one timer, so the map is concurrent, and
 * closing is left to Vert.x, which runs it on the connection's own event loop. A sweep every
 * {@link #SWEEP} is precise enough for a timeout of seconds.
 */
public final class SlowClients {
  static final Duration SWEEP = Duration.ofMillis(250);

  private final long timeoutNanos;
  private final Map<HttpConnection, Waiting> connections = new ConcurrentHashMap<>();

  /** A connection's request in progress, or since when it has waited for one. */
  private static final class Waiting {
    volatile HttpServerRequest current;
    volatile long since;
  }

  /** Sweeps on a timer of {@code vertx}'s until it closes. */
  public SlowClients(Vertx vertx, Duration headerTimeout) {
    this.timeoutNanos = headerTimeout.toNanos();
    vertx.setPeriodic(SWEEP.toMillis(), tick -> sweep());
  }

  /** A connection was accepted: it waits for its first request head from now. */
  public void connected(HttpConnection connection) {
    Waiting waiting = new Waiting();
    waiting.since = System.nanoTime();
    // No close handler: Vert.x may call it at once for the connection handed here. A connection
    // that closes by itself leaves the map at its next deadline, closed again harmlessly, so the
    // map holds at most the connections of one timeout's worth of traffic.
    connections.put(connection, waiting);
  }

  /** A request's head has arrived: the connection is busy until its response has ended. */
  public void requestStarted(HttpServerRequest request) {
    Waiting waiting = connections.get(request.connection());
    if (waiting != null) {
      waiting.current = request;
    }
  }

  private void sweep() {
    long now = System.nanoTime();
    List<HttpConnection> overdue = new ArrayList<>();
    connections.forEach((connection, waiting) -> {
      if (waiting.current != null) {
        if (!waiting.current.response().ended()) {
          return;
        }
        waiting.current = null;
        waiting.since = now;
      }
      if (now - waiting.since > timeoutNanos) {
        overdue.add(connection);
      }
    });
    overdue.forEach(connection -> {
      connections.remove(connection);
      connection.close();
    });
  }
}
