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
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
  private final PerHost<Probe> probes;
  private final long timer;
  private boolean closed;
  /**
   * Why each down host is down, republished whole at every change: every routed request reads it,
   * so reading it takes no lock and allocates nothing.
   */
  private volatile Map<String, String> down = Map.of();

  public HostHealth(Vertx vertx, PoolSettings settings, Clock clock, ShardMap initial) {
    this.vertx = vertx;
    this.settings = settings;
    this.clock = clock;
    this.probes = new PerHost<>(Probe::new, (probe, why) -> probe.close());
    apply(initial);
    this.timer = vertx.setPeriodic(Math.max(25, settings.downAfter().toMillis() / 4), id -> tick());
  }

  /** Probes the map's hosts: a new host, or one whose primary moved, gets a new probe; a gone one loses its own. */
  public synchronized void apply(ShardMap map) {
    probes.apply(map);
    publish();
  }

  /** Why {@code host} is down; null while it answers (or is not probed). */
  public String down(String host) {
    return down.get(host);
  }

  /** Each host by name, and whether it answers its probe. */
  public synchronized Map<String, Boolean> answering() {
    Map<String, Boolean> answering = new LinkedHashMap<>();
    probes.values().forEach((name, probe) -> answering.put(name, probe.down == null));
    return answering;
  }

  public synchronized Future<Void> close() {
    closed = true;
    vertx.cancelTimer(timer);
    List<Future<Void>> closing = new ArrayList<>();
    probes.clear().forEach(probe -> closing.add(probe.close()));
    return Future.join(closing).mapEmpty();
  }

  private synchronized void tick() {
    long now = clock.millis();
    probes.values().values().forEach(probe -> probe.tick(now));
  }

  /** Republishes {@link #down}: called, holding the lock, whenever a probe's verdict or the set of probes changes. */
  private void publish() {
    Map<String, String> reasons = new HashMap<>();
    probes.values().forEach((name, probe) -> {
      if (probe.down != null) {
        reasons.put(name, probe.down);
      }
    });
    down = Map.copyOf(reasons);
  }

  /** One host's probe: at most one {@code SELECT 1} in flight, on a connection of its own. Guarded by the owner's lock. */
  private final class Probe {
    private final Host host;
    private final Pool pool;
    /** When the probe in flight was sent; -1 when none is. */
    private long sentAt = -1;
    /** Why the host is down; null while it answers. */
    private String down;

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
        if (failure != null) {
          markDown("its probe failed: " + failure.getMessage());
        } else if (down != null) {
          log.info("host {} answers again", host.name());
          down = null;
          publish();
        }
      }
    }

    private void markDown(String why) {
      if (down == null) {
        log.warn("host {} ({}) is down: {}", host.name(), host.primary(), why);
      }
      down = why;
      publish();
    }

    Future<Void> close() {
      return pool.close();
    }
  }
}
