package io.quiver.store.internal.sql;

import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
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
 * that is down learns it within twice {@code downAfter}, and a request meanwhile fails as it would
 * have. The first probe gets the longer deadline because it also opens its connection (TCP, TLS,
 * login, the session's settings), which on a machine busy starting a server and its databases
 * took longer than a second and marked both healthy hosts down for an instant.
 *
 * <h2>Degraded: a host whose commits stall</h2>
 * A MariaDB whose disk is full answers {@code SELECT 1} and every read, but its COMMITs wait for
 * space without end. That host is <em>degraded</em>: {@link CommitWatch} sees a COMMIT in flight
 * for half the statement deadline ({@link CommitWatch#stalled}), and the host stays degraded until a
 * COMMIT on it succeeds (judged at each tick, so a quarter of {@code downAfter} late at most). Half,
 * not the whole: the killer kills a COMMIT when its request's deadline passes, which is sooner than
 * a deadline after the COMMIT was sent, and a stall judged at the whole deadline could go unseen
 * (the first stalled COMMIT killed, the binary log turned off, the next COMMIT succeeding). It keeps
 * serving reads; {@code /health} and the status name it and why, and new nodes are placed on other
 * hosts ({@link #acceptsNewNodes}). Each tick also has the {@link QueryKiller} sweep a host where a
 * deadline passed or commits stall, from the probe's pool, so the connections come back.
 *
 * <p>A COMMIT killed while it waits for space to write the binary log is not lost: MariaDB commits
 * it and turns its binary log off for the rest of the process's life. The host then serves writes
 * again at once, but nothing replicates from it; every {@link #BINLOG_CHECK} the probe asks
 * whether a binary log configured on is still written, and the host stays degraded, saying so,
 * until it is restarted.
 */
public final class HostHealth {
  private static final Logger log = LoggerFactory.getLogger(HostHealth.class);

  /** How often each host's binary log is checked ({@link Probe#checkBinlog}). */
  static final java.time.Duration BINLOG_CHECK = java.time.Duration.ofSeconds(5);
  /** A probe in flight for this many times {@code downAfter} is given up ({@link Probe#abandon}). */
  static final int ABANDON_AFTER = 4;

  private final Vertx vertx;
  private final PoolSettings settings;
  private final Clock clock;
  private final CommitWatch commits;
  private final QueryKiller killer;
  private final PerHost<Probe> probes;
  private final long timer;
  private boolean closed;
  /**
   * Why each down host is down, republished whole at every change: every routed request reads it,
   * so reading it takes no lock and allocates nothing.
   */
  private volatile Map<String, String> down = Map.of();
  /**
   * Why each degraded host is degraded, republished as {@link #down} is, at each tick: node
   * creation reads it for every shard it considers, so reading it is one map lookup.
   */
  private volatile Map<String, String> degraded = Map.of();
  /** The map probed by, for each host's replicas. Guarded by this. */
  private ShardMap map;

  public HostHealth(Vertx vertx, PoolSettings settings, Clock clock, ShardMap initial, CommitWatch commits,
      QueryKiller killer) {
    this.vertx = vertx;
    this.settings = settings;
    this.clock = clock;
    this.commits = commits;
    this.killer = killer;
    this.probes = new PerHost<>(Probe::new, (probe, why) -> probe.close());
    apply(initial);
    this.timer = vertx.setPeriodic(Math.max(25, settings.downAfter().toMillis() / 4), id -> tick());
  }

  /** Probes the map's hosts: a new host, or one whose primary moved, gets a new probe; a gone one loses its own. */
  public synchronized void apply(ShardMap map) {
    this.map = map;
    probes.apply(map);
    publish();
  }

  /** Why {@code host} is down; null while it answers (or is not probed). */
  public String down(String host) {
    return down.get(host);
  }

  /**
   * Why {@code host} is degraded, or null while it is not: its commits stall ({@link CommitWatch}),
   * its binary log is off (MariaDB turns it off for good when a write to it fails, as when a
   * COMMIT stalled on a full disk is killed: replicas and shard moves then see nothing), or it lists
   * replicas but none confirms its writes.
   */
  public String degraded(String host) {
    return degraded.get(host);
  }

  /** Whether new nodes may be placed on {@code host}: it answers, and its commits do not stall. */
  public boolean acceptsNewNodes(String host) {
    return down(host) == null && degraded(host) == null;
  }

  /** Each probed host with something wrong, and what: {@code down: …} or {@code degraded: …}. */
  public Map<String, String> problems() {
    Map<String, String> problems = new LinkedHashMap<>();
    down.forEach((name, why) -> problems.put(name, "down: " + why));
    degraded.forEach((name, why) -> problems.putIfAbsent(name, "degraded: " + why));
    return problems;
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
    probes.values().values().forEach(probe -> {
      probe.tick(now);
      String host = probe.host.name();
      probe.stalled = commits.stalled(host, settings.statementTimeout().toMillis());
      probe.shortOfSpace = commits.shortOfSpace(host, settings.statementTimeout().toMillis());
      if (probe.down == null && (killer.due(host) || probe.stalled != null)) {
        killer.sweep(host, probe.pool).onFailure(failure -> log.warn("host {}: the sweep for statements past their"
            + " deadline failed: {}", host, failure.getMessage()));
      }
    });
    publish();
  }

  /**
   * Republishes {@link #down} and {@link #degraded}: called, holding the lock, at each tick and
   * whenever a probe's verdict or the set of probes changes.
   */
  private void publish() {
    Map<String, String> reasons = new HashMap<>();
    Map<String, String> degradations = new HashMap<>();
    probes.values().forEach((name, probe) -> {
      if (probe.down != null) {
        reasons.put(name, probe.down);
      } else if (probe.degradation() != null) {
        degradations.put(name, probe.degradation());
      }
    });
    down = Map.copyOf(reasons);
    degraded = Map.copyOf(degradations);
  }

  /** One host's probe: at most one {@code SELECT 1} in flight, on a connection of its own. Guarded by the owner's lock. */
  private final class Probe {
    private final Host host;
    /** The probe's connections; replaced when a probe is given up ({@link #abandon}). */
    private Pool pool;
    /** When the probe in flight was sent; -1 when none is. */
    private long sentAt = -1;
    /** Counts the pools given up: an answer to a query on an earlier pool (a probe, a check) is ignored. */
    private int generation;
    /** Whether a probe was ever answered: until then a probe also opens its connection. */
    private boolean answeredOnce;
    /** Why the host is down; null while it answers. */
    private String down;
    /** When the binary log was last checked, and whether a check is in flight. */
    private long binlogCheckedAt;
    private boolean binlogChecking;
    /** Why the host's commits stall ({@link CommitWatch}), as of the last tick; null while they do not. */
    private String stalled;
    /** Why the host is short of space or memory ({@link CommitWatch#shortOfSpace}), as of the last tick; or null. */
    private String shortOfSpace;
    /**
     * Why the writes of a host that lists replicas are not confirmed by one (semi-synchronous
     * replication off, or no replica connected); null while a replica confirms them, or when the
     * host lists none.
     */
    private String unconfirmed;

    /**
     * Why the host is degraded, or null: the first of its stalled commits, its binary log off, a
     * shortage of space or memory, its writes unconfirmed — the graver first.
     */
    String degradation() {
      String binlogOff = commits.binaryLogOff(host.name());
      return stalled != null ? stalled
          : binlogOff != null ? binlogOff
          : shortOfSpace != null ? shortOfSpace
          : unconfirmed;
    }

    Probe(Host host) {
      this.host = host;
      this.pool = openPool();
    }

    private Pool openPool() {
      // Two connections: the probe's, and the query killer's sweeps (QueryKiller), which never wait behind it.
      return HostPools.pool(vertx, host, settings, HostPools.probePool("quiver-probe-" + host.name(), 2, settings),
          null);
    }

    void tick(long now) {
      if (!binlogChecking && now - binlogCheckedAt >= BINLOG_CHECK.toMillis()) {
        binlogCheckedAt = now;
        checkBinlog();
      }
      if (sentAt >= 0) {
        long waited = now - sentAt;
        if (waited >= settings.downAfter().toMillis() * (answeredOnce ? 1 : 2)) {
          markDown("it has not answered a probe for " + waited + " ms");
        }
        if (waited < settings.downAfter().toMillis() * ABANDON_AFTER) {
          return;
        }
        abandon(waited);
      }
      sentAt = now;
      int sent = generation;
      pool.query("SELECT 1").execute().onComplete(done -> answered(sent, done.failed() ? done.cause() : null));
    }

    /**
     * Gives up a probe in flight for {@link #ABANDON_AFTER} times {@code downAfter}: its pool is
     * closed, failing whatever it still holds, a new one is opened, and the next probe goes out on
     * it. A probe waits on a host that is frozen, and is answered when it thaws; but one whose
     * connection the client lost track of never completes, and as only one probe is in flight
     * at a time, its host stayed down for good though it answered again (seen once in the suite:
     * the probe's session was being prepared as its host stopped).
     */
    private void abandon(long waited) {
      log.warn("host {} ({}): its probe sent {} ms ago has not completed; its connections are closed and new ones"
          + " opened", host.name(), host.primary(), waited);
      generation++;
      Pool stuck = pool;
      pool = openPool();
      // A check in flight on the old pool is ignored when it ends (its generation is gone): the next tick starts one.
      binlogChecking = false;
      stuck.close();
    }

    /** Whether an answer to a query sent on generation {@code sent}'s pool still counts. */
    private boolean current(int sent) {
      return !closed && sent == generation;
    }

    private void answered(int sent, Throwable failure) {
      synchronized (HostHealth.this) {
        if (!current(sent)) {
          return;
        }
        sentAt = -1;
        answeredOnce |= failure == null;
        if (failure != null) {
          markDown("its probe failed: " + failure.getMessage());
        } else if (down != null) {
          log.info("host {} answers again", host.name());
          down = null;
          publish();
        }
      }
    }

    /**
     * Whether a binary log configured on is still written: MariaDB answers {@code SHOW MASTER
     * STATUS} with no row once it has turned the log off after a failed write.
     */
    private void checkBinlog() {
      binlogChecking = true;
      boolean replicated = map != null && map.hosts().containsKey(host.name())
          && !map.hosts().get(host.name()).replicas().isEmpty();
      int sent = generation;
      checkReplicas(replicated, sent);
      pool.query("SELECT @@log_bin").execute()
          .compose(configured -> configured.iterator().next().getInteger(0) == 1
              ? pool.query("SHOW MASTER STATUS").execute().map(status -> status.size() == 0)
              : io.vertx.core.Future.succeededFuture(false))
          .onComplete(checked -> {
            synchronized (HostHealth.this) {
              if (!current(sent)) {
                return;
              }
              binlogChecking = false;
              if (checked.failed()) {
                return;
              }
              boolean off = checked.result();
              if (off && commits.binaryLogOff(host.name()) == null) {
                log.warn("host {} ({}) runs with its binary log off: MariaDB turned it off after a write to it failed"
                    + " (a full disk?); free space and restart it", host.name(), host.primary());
              }
              commits.binaryLogOff(host.name(), off ? "its binary log is off: MariaDB turned it off after a write to"
                  + " it failed (a full disk?); free space and restart the host to turn it on again" : null);
            }
          });
    }

    /**
     * For a host that lists replicas: whether a replica confirms its writes. MariaDB reports its
     * semi-synchronous state ({@code Rpl_semi_sync_master_status}: OFF once it fell back to
     * acknowledging alone, or when a restart left it unconfigured) and how many replicas confirm
     * ({@code Rpl_semi_sync_master_clients}).
     */
    private void checkReplicas(boolean replicated, int sent) {
      if (!replicated) {
        unconfirmed = null;
        return;
      }
      pool.query("SHOW GLOBAL STATUS WHERE Variable_name IN ('Rpl_semi_sync_master_status',"
              + " 'Rpl_semi_sync_master_clients')").execute()
          .onComplete(checked -> {
            synchronized (HostHealth.this) {
              if (!current(sent) || checked.failed()) {
                return;
              }
              String status = "OFF";
              long clients = 0;
              for (io.vertx.sqlclient.Row row : checked.result()) {
                if (row.getString(0).equalsIgnoreCase("Rpl_semi_sync_master_status")) {
                  status = row.getString(1);
                } else {
                  clients = Long.parseLong(row.getString(1));
                }
              }
              String why = !"ON".equalsIgnoreCase(status)
                  ? "its writes are acknowledged without a replica: semi-synchronous replication is off (no replica"
                      + " confirmed in time, or the primary restarted without it); add the replica again"
                  : clients == 0 ? "no replica confirms its writes: they wait for one (or are acknowledged alone"
                      + " after the timeout, with replication.withoutAck async)" : null;
              if (why != null && unconfirmed == null) {
                log.warn("host {} ({}): {}", host.name(), host.primary(), why);
              } else if (why == null && unconfirmed != null) {
                log.info("host {}: a replica confirms its writes again", host.name());
              }
              unconfirmed = why;
            }
          });
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
