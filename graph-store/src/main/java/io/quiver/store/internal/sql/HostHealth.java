package io.quiver.store.internal.sql;

import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which hosts answer, known before a request needs one.
 *
 * <p>A host that stops answering without refusing — a process stopped by SIGSTOP, a stalled
 * disk, a paused VM, a network that drops packets without resetting connections — is the worst
 * kind of down: TCP still connects into the kernel's backlog and statements wait without end, so
 * a request that asks it learns nothing until its own timeout, and every such request holds a
 * pooled connection meanwhile. Asking on a request's behalf is therefore too late. Each host has
 * a probe of its own instead, as Vitess' health check streams from every tablet and calls one
 * unhealthy when it falls silent: a pool of one connection, apart from the requests' pools,
 * sending {@code SELECT 1} every quarter of {@link PoolSettings#downAfter()}. A probe left
 * unanswered for {@code downAfter}, or failing, marks its host down; the shards on it then answer
 * 503 naming the host at once ({@link ShardRouter#route}), and {@code /health} reads the state
 * without a query of its own. The next answer marks the host up again.
 *
 * <p>A host is presumed up until its first probe says otherwise: a server starting beside a host
 * that is down learns it within {@code downAfter}, and a request meanwhile fails as it would have.
 */
public final class HostHealth {
  private static final Logger log = LoggerFactory.getLogger(HostHealth.class);

  private final Vertx vertx;
  private final PoolSettings settings;
  private final Clock clock;
  private final Map<String, Probe> probes = new TreeMap<>();
  private final long timer;
  private boolean closed;

  public HostHealth(Vertx vertx, PoolSettings settings, Clock clock, ShardMap initial) {
    this.vertx = vertx;
    this.settings = settings;
    this.clock = clock;
    apply(initial);
    this.timer = vertx.setPeriodic(Math.max(25, settings.downAfter().toMillis() / 4), id -> tick());
  }

  /** Probes the map's hosts: a new host, or one whose primary moved, gets a new probe; a gone one loses its own. */
  public synchronized void apply(ShardMap map) {
    for (Host host : map.hosts().values()) {
      Probe current = probes.get(host.name());
      if (current == null || !current.host.primary().equals(host.primary())) {
        probes.put(host.name(), new Probe(host));
        if (current != null) {
          current.close();
        }
      }
    }
    List<String> gone = new ArrayList<>(probes.keySet());
    gone.removeAll(map.hosts().keySet());
    gone.forEach(name -> probes.remove(name).close());
  }

  /** Why {@code host} is down, or empty while it answers (or is not probed). */
  public synchronized Optional<String> down(String host) {
    Probe probe = probes.get(host);
    return probe == null ? Optional.empty() : Optional.ofNullable(probe.down);
  }

  /** Each host by name, and whether it answers its probe. */
  public synchronized Map<String, Boolean> answering() {
    Map<String, Boolean> answering = new LinkedHashMap<>();
    probes.forEach((name, probe) -> answering.put(name, probe.down == null));
    return answering;
  }

  public synchronized Future<Void> close() {
    closed = true;
    vertx.cancelTimer(timer);
    List<Future<Void>> closing = new ArrayList<>();
    probes.values().forEach(probe -> closing.add(probe.close()));
    probes.clear();
    return Future.join(closing).mapEmpty();
  }

  private synchronized void tick() {
    long now = clock.millis();
    probes.values().forEach(probe -> probe.tick(now));
  }

  /** One host's probe: at most one {@code SELECT 1} in flight, on a connection of its own. */
  private final class Probe {
    private final Host host;
    private final Pool pool;
    /** When the probe in flight was sent; -1 when none is. */
    private long sentAt = -1;
    /** Why the host is down; null while it answers. */
    private volatile String down;

    Probe(Host host) {
      this.host = host;
      this.pool = HostPools.pool(vertx, host, settings, new PoolOptions()
          .setName("quiver-probe-" + host.name())
          .setMaxSize(1)
          .setConnectionTimeout((int) settings.downAfter().toMillis())
          .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS));
    }

    void tick(long now) {
      if (sentAt >= 0) {
        if (now - sentAt >= settings.downAfter().toMillis()) {
          markDown("it has not answered a probe for " + (now - sentAt) + " ms");
        }
        return;
      }
      sentAt = now;
      pool.query("SELECT 1").execute().onComplete(done -> answered(done.failed() ? done.cause() : null));
    }

    private void answered(Throwable failure) {
      synchronized (HostHealth.this) {
        if (closed) {
          return;
        }
        sentAt = -1;
        if (failure == null) {
          if (down != null) {
            log.info("host {} answers again", host.name());
          }
          down = null;
        } else {
          markDown("its probe failed: " + failure.getMessage());
        }
      }
    }

    private void markDown(String why) {
      if (down == null) {
        log.warn("host {} ({}) is down: {}", host.name(), host.primary(), why);
      }
      down = why;
    }

    Future<Void> close() {
      return pool.close();
    }
  }
}
