package io.quiver.store.internal.sql;

import io.quiver.store.PoolSettings;
import io.quiver.store.ReplicaReadSettings;
import io.quiver.store.shard.GtidPosition;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Row;
import java.time.Clock;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Deque;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * How far behind its primary each replica is, measured continuously by this server, and a pool on
 * each replica for the reads that tolerate it ({@link ShardRouter#route} with
 * {@link Access#STALE_READ}).
 *
 * <h2>What lag means here</h2>
 * A replica's lag is an upper bound on how stale a read it answers now can be: a read it answers
 * reflects every write its primary acknowledged before {@code now - lag}. It is not MySQL's
 * {@code Seconds_Behind_Master}, which compares event timestamps across two clocks, reads 0 on an
 * idle replica whose connection silently died, and jumps when a long transaction arrives; Vitess
 * and pt-heartbeat measure with a heartbeat row written on the primary for the same reasons. The
 * heartbeat costs a write on every primary; GTID positions give the same bound for the price of a
 * read, and with one clock, this server's:
 * <ul>
 *   <li>Every {@link ReplicaReadSettings#probeEvery()}, the primary's {@code @@gtid_binlog_pos} is
 *       read. A write acknowledged before the query was sent is in that position (MariaDB writes
 *       the binary log before it acknowledges), so a replica that has applied the position holds
 *       every write acknowledged before the query's send time.
 *   <li>Each replica's applied ({@code Gtid_Slave_Pos}) and received ({@code Gtid_IO_Pos})
 *       positions are read on the same beat. The replica is current as of the latest primary
 *       sample it has applied ({@link Freshness#asOf}).
 *   <li>A primary that stops answering (frozen, dead, cut off) stops giving samples, and its
 *       replicas would look ever staler exactly when they are needed. But while its primary
 *       acknowledges only writes a replica has received (semi-synchronous replication that never
 *       falls back: {@code ReplicaAcks} REFUSE), a replica that has applied everything any of the
 *       host's replicas had received when last asked holds every write acknowledged before the
 *       earliest of those asks. That is the second rule of {@link Freshness#asOf}, and why, with
 *       the primary frozen, stale-tolerant reads keep being answered. A primary that falls back to
 *       asynchronous acknowledgements (ASYNC) gets only the first rule.
 * </ul>
 * Both rules only ever understate freshness: the samples age between beats, and lag is measured
 * from a query's send time, not its answer's.
 *
 * <p>Each replica gets two pools: one connection for the probe, so a probe never waits behind
 * reads, and {@link ReplicaReadSettings#poolSize()} for reads, opened only when a read needs one.
 * A host without replicas costs nothing.
 */
public final class ReplicaLag {
  /**
   * A primary whose semi-synchronous timeout is at least this never falls back to acknowledging
   * alone (REFUSE sets about 49 days; ASYNC seconds).
   */
  static final long NEVER_FALLS_BACK_MS = java.time.Duration.ofHours(1).toMillis();
  private static final String PRIMARY_SAMPLE = "SELECT @@GLOBAL.gtid_binlog_pos, @@GLOBAL.rpl_semi_sync_master_timeout,"
      + " (SELECT variable_value FROM information_schema.global_status"
      + " WHERE variable_name = 'RPL_SEMI_SYNC_MASTER_STATUS')";

  /** A replica that can answer reads: its address, its pool, and the time before which it holds every acknowledged write. */
  public record Fresh(String address, Pool pool, long asOf) {}

  private final Vertx vertx;
  private final PoolSettings pools;
  private final ReplicaReadSettings settings;
  private final Clock clock;
  private final PerHost<Watched> watched;
  private final long timer;
  private boolean closed;
  /**
   * Each host's freshest replica, republished whenever a sample comes in; whether it is within the bound is
   * judged when a read asks ({@link #freshest}), so a replica that falls behind between beats is
   * never used past the bound.
   */
  private volatile Map<String, Fresh> freshest = Map.of();

  public ReplicaLag(Vertx vertx, PoolSettings pools, ReplicaReadSettings settings, Clock clock, ShardMap initial) {
    this.vertx = vertx;
    this.pools = pools;
    this.settings = settings;
    this.clock = clock;
    this.watched = new PerHost<>(Host::equals, Watched::new, (old, why) -> old.close());
    apply(initial);
    this.timer = vertx.setPeriodic(settings.probeEvery().toMillis(), id -> beat());
  }

  /** Watches the replicas the map lists; a host whose primary or replicas changed is watched afresh. */
  public synchronized void apply(ShardMap map) {
    if (!closed) {
      watched.apply(map);
      publish();
    }
  }

  /** How long a stale-tolerant read waits for the primary before it is also sent to a replica. */
  public long hedgeAfterMillis() {
    return settings.hedgeAfter().toMillis();
  }

  /** The freshest replica of {@code host} if it is within the bound now; null when none is. */
  public Fresh freshest(String host) {
    Fresh replica = freshest.get(host);
    return replica != null && clock.millis() - replica.asOf() <= settings.maxLag().toMillis() ? replica : null;
  }

  /** Each host that lists replicas: each replica's lag in milliseconds, or -1 while it is not known. */
  public synchronized Map<String, Map<String, Long>> lags() {
    long now = clock.millis();
    Map<String, Map<String, Long>> lags = new LinkedHashMap<>();
    watched.values().forEach((name, host) -> {
      if (!host.replicas.isEmpty()) {
        Map<String, Long> each = new LinkedHashMap<>();
        host.replicas.forEach(replica -> each.put(replica.address, host.lag(replica, now)));
        lags.put(name, each);
      }
    });
    return lags;
  }

  public synchronized Future<Void> close() {
    closed = true;
    vertx.cancelTimer(timer);
    freshest = Map.of();
    List<Future<Void>> closing = new ArrayList<>();
    watched.clear().forEach(host -> closing.add(host.close()));
    return Future.join(closing).mapEmpty();
  }

  private synchronized void beat() {
    if (closed) {
      return;
    }
    long now = clock.millis();
    watched.values().values().forEach(host -> host.beat(now));
  }

  /**
   * Republishes {@link #freshest} from each host's own ({@link Watched#best}, recomputed only
   * when one of its samples comes in); called holding the lock.
   */
  private void publish() {
    if (closed) {
      return;
    }
    Map<String, Fresh> next = new HashMap<>();
    watched.values().forEach((name, host) -> {
      if (host.best != null) {
        next.put(name, host.best);
      }
    });
    freshest = Map.copyOf(next);
  }

  /** What the primary said at one beat: its position, and whether it acknowledges only what a replica has. */
  record PrimarySample(long sentAt, GtidPosition position, boolean replicaConfirms) {}

  /** What a replica said at one beat: what it has applied and what it has received. */
  record ReplicaSample(long sentAt, GtidPosition applied, GtidPosition received) {}

  /** The rules that turn samples into "current as of", apart from any I/O so that they are tested alone. */
  static final class Freshness {
    private Freshness() {}

    /**
     * The time before which {@code replica} holds every write its primary acknowledged, or -1 when
     * the samples cannot say. First rule: the send time of the latest primary sample whose
     * position it has applied. Second rule, only while the primary's latest sample shows it never
     * acknowledges a write no replica has: if it has applied what every replica of the host had
     * received when last asked, the earliest of those asks (every acknowledged write had reached
     * one of them by then).
     *
     * @param primary the primary's samples, oldest first (the last says whether it confirms)
     * @param all the latest sample of every replica the host lists, {@code replica}'s among them
     *     (null for one not yet answered)
     */
    static long asOf(Collection<PrimarySample> primary, ReplicaSample replica, List<ReplicaSample> all) {
      if (replica == null) {
        return -1;
      }
      long asOf = -1;
      boolean confirmed = false;
      for (PrimarySample sample : primary) {
        if (replica.applied().covers(sample.position())) {
          asOf = Math.max(asOf, sample.sentAt());
        }
        confirmed = sample.replicaConfirms();
      }
      if (confirmed) {
        long earliest = Long.MAX_VALUE;
        for (ReplicaSample other : all) {
          if (other == null || !replica.applied().covers(other.received())) {
            return asOf;
          }
          earliest = Math.min(earliest, other.sentAt());
        }
        asOf = Math.max(asOf, earliest);
      }
      return asOf;
    }
  }

  /** One host's primary and replicas, watched. Guarded by the owner's lock. */
  private final class Watched {
    private final Host host;
    private final Pool primaryProbe;
    private final List<Replica> replicas = new ArrayList<>();
    /** The primary's answered samples, oldest first, kept for twice the bound. */
    private final Deque<PrimarySample> samples = new ArrayDeque<>();
    private boolean primaryAsked;
    /** The freshest replica as of the last sample; null while none is known current. */
    private Fresh best;

    Watched(Host host) {
      this.host = host;
      this.primaryProbe = host.replicas().isEmpty() ? null : probePool(host.name(), host.primary());
      host.replicas().forEach(address -> replicas.add(new Replica(this, host.name(), address)));
    }

    void beat(long now) {
      if (primaryProbe == null) {
        return;
      }
      if (!primaryAsked) {
        primaryAsked = true;
        primaryProbe.query(PRIMARY_SAMPLE).execute().onComplete(done -> {
          synchronized (ReplicaLag.this) {
            primaryAsked = false;
            if (done.succeeded()) {
              Row row = done.result().iterator().next();
              Long timeout = row.getLong(1);
              boolean confirms = "ON".equalsIgnoreCase(row.getString(2)) && timeout != null
                  && timeout >= NEVER_FALLS_BACK_MS;
              samples.addLast(new PrimarySample(now, GtidPosition.parse(row.getString(0)), confirms));
              while (samples.size() > 1 && samples.peekFirst().sentAt() < now - 2 * settings.maxLag().toMillis()) {
                samples.removeFirst();
              }
              refresh();
              publish();
            }
          }
        });
      }
      replicas.forEach(replica -> replica.beat(now));
    }

    long asOf(Replica replica) {
      List<ReplicaSample> all = new ArrayList<>();
      replicas.forEach(each -> all.add(each.latest));
      return Freshness.asOf(samples, replica.latest, all);
    }

    /** Recomputes {@link #best} from the samples now; called when one of this host's comes in. */
    void refresh() {
      Fresh freshest = null;
      for (Replica replica : replicas) {
        long asOf = asOf(replica);
        if (asOf >= 0 && (freshest == null || asOf > freshest.asOf())) {
          freshest = new Fresh(replica.address, replica.reads, asOf);
        }
      }
      best = freshest;
    }

    long lag(Replica replica, long now) {
      long asOf = asOf(replica);
      return asOf < 0 ? -1 : Math.max(0, now - asOf);
    }

    Future<Void> close() {
      List<Future<Void>> closing = new ArrayList<>();
      if (primaryProbe != null) {
        closing.add(primaryProbe.close());
      }
      replicas.forEach(replica -> closing.add(replica.close()));
      return Future.join(closing).mapEmpty();
    }
  }

  /** One replica: its probe, its latest sample, and its pool for reads. Guarded by the owner's lock. */
  private final class Replica {
    /** The host it replicates, whose freshest replica it may change. */
    private final Watched owner;
    private final String address;
    private final Pool probe;
    private final Pool reads;
    private ReplicaSample latest;
    private boolean asked;

    Replica(Watched owner, String hostName, String address) {
      this.owner = owner;
      this.address = address;
      this.probe = probePool(hostName, address);
      this.reads = HostPools.pool(vertx, new Host(hostName, address, List.of()), pools,
          HostPools.requestPool("quiver-replica-" + hostName + "-" + address, settings.poolSize(), pools), null);
    }

    void beat(long now) {
      if (asked) {
        return;
      }
      asked = true;
      probe.query("SHOW ALL SLAVES STATUS").execute().onComplete(done -> {
        synchronized (ReplicaLag.this) {
          asked = false;
          if (done.succeeded()) {
            for (Row row : done.result()) {
              if ("".equals(row.getString("Connection_name"))) {
                latest = new ReplicaSample(now, GtidPosition.parse(row.getString("Gtid_Slave_Pos")),
                    GtidPosition.parse(row.getString("Gtid_IO_Pos")));
              }
            }
            owner.refresh();
            publish();
          }
        }
      });
    }

    Future<Void> close() {
      return Future.join(probe.close(), reads.close()).mapEmpty();
    }
  }

  private Pool probePool(String hostName, String address) {
    return HostPools.pool(vertx, new Host(hostName, address, List.of()), pools,
        HostPools.probePool("quiver-lag-" + hostName + "-" + address, 1, pools), null);
  }
}
