package io.quiver.outbox;

import io.quiver.edge.EdgeStore;
import io.quiver.edge.EdgeWrite.PendingInverse;
import io.quiver.error.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.SchemaSource;
import io.quiver.shard.ShardMap;
import io.quiver.sql.Access;
import io.quiver.sql.ShardRoute;
import io.quiver.sql.ShardRouter;
import io.quiver.sql.SqlErrors;
import io.quiver.sql.SqlValues;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Tuple;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains the outboxes and writes the inverse copies.
 *
 * <h2>One drainer per host</h2>
 * For every host in the shard map, every server joins a Curator leader latch; the one holding it
 * drains the outboxes of all the shards on that host. A server that dies loses its ZooKeeper
 * session and its latches pass to the others, which find every entry still there: entries are
 * deleted only after their inverse is written. A brief overlap of two drainers during a handover
 * only applies some entries twice, which changes nothing ({@link InverseWriter}).
 *
 * <h2>Failures</h2>
 * An entry whose target host is unavailable waits and is retried, for as long as the outage
 * lasts, without counting toward parking. Any other failure counts; after
 * {@link ApplierSettings#maxAttempts()} the entry is parked with its error, so that one entry
 * that can never be applied does not stand for ever in front of the others. Entries are read in
 * due-time order, so rescheduled ones step aside. Forward writes never wait for any of this.
 */
public final class InverseApplier implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InverseApplier.class);
  private static final long UNAVAILABLE_RETRY_US = 500_000;

  private final Vertx vertx;
  private final Context context;
  private final CuratorFramework curator;
  private final ShardRouter router;
  private final SchemaSource schemas;
  private final InverseWriter writer;
  private final CascadeDelete cascades;
  private final ApplierSettings settings;
  private final Clock clock;
  private final String serverId;
  /** Entries applied at once: no more than the background pool's connections. */
  private final int parallelism;
  private final Map<String, HostDrain> drains = new ConcurrentHashMap<>();
  private final Map<String, OutboxStats> stats = new ConcurrentHashMap<>();
  private volatile boolean closed;

  public InverseApplier(Vertx vertx, CuratorFramework curator, ShardRouter router, SchemaSource schemas,
      InverseWriter writer, EdgeStore edges, ApplierSettings settings, Clock clock, String serverId, int parallelism) {
    this.vertx = vertx;
    this.context = vertx.getOrCreateContext();
    this.curator = curator;
    this.router = router;
    this.schemas = schemas;
    this.writer = writer;
    this.cascades = new CascadeDelete(edges, schemas);
    this.settings = settings;
    this.clock = clock;
    this.serverId = serverId;
    this.parallelism = parallelism;
  }

  /** Joins the lease of every host in the map, and follows the map as hosts come and go. */
  public synchronized void follow(ShardMap map) {
    if (closed) {
      return;
    }
    for (String host : map.hosts().keySet()) {
      drains.computeIfAbsent(host, name -> new HostDrain(name).start());
    }
    for (String host : List.copyOf(drains.keySet())) {
      if (!map.hosts().containsKey(host)) {
        drains.remove(host).close();
        stats.remove(host);
      }
    }
  }

  /** Each host this server drains, with its outbox figures. */
  public Map<String, OutboxStats> stats() {
    return Map.copyOf(stats);
  }

  /**
   * Applies one pending entry now, for a caller that waits to read its own inverse. Answers
   * whether the inverse is written; if not, the entry stays for the drainer.
   */
  public Future<Boolean> applyNow(PendingInverse pending) {
    ShardRoute route;
    try {
      route = router.route(pending.shard(), Access.WRITE);
    } catch (GraphException e) {
      return Future.succeededFuture(false);
    }
    return Outbox.get(route.pool(), route, pending.entryId())
        .compose(entry -> entry == null
            ? Future.succeededFuture(true)
            : writer.apply(entry.op()).compose(changed -> Outbox.delete(route.pool(), route, entry.id())).map(true))
        .otherwise(false);
  }

  // ---- one host ----

  private final class HostDrain implements LeaderLatchListener {
    private final String host;
    private final LeaderLatch latch;
    private volatile boolean leading;
    private long lastGcUs;

    HostDrain(String host) {
      this.host = host;
      this.latch = new LeaderLatch(curator, settings.leasePath() + "/" + host, serverId);
      latch.addListener(this);
    }

    HostDrain start() {
      try {
        latch.start();
      } catch (Exception e) {
        throw new IllegalStateException("could not join the outbox lease of host " + host, e);
      }
      return this;
    }

    @Override
    public void isLeader() {
      log.info("draining the outboxes of host {}", host);
      leading = true;
      context.runOnContext(started -> loop());
    }

    @Override
    public void notLeader() {
      log.info("no longer draining the outboxes of host {}", host);
      leading = false;
      stats.remove(host);
    }

    private void loop() {
      if (!leading || closed) {
        return;
      }
      pass().onComplete(done -> {
        if (done.failed()) {
          log.warn("outbox pass on host {} failed: {}", host, done.cause().getMessage());
        }
        long delay = done.succeeded() && done.result() > 0 ? 1 : settings.idleDelay().toMillis();
        if (leading && !closed) {
          vertx.setTimer(delay, timer -> loop());
        }
      });
    }

    /** One pass over the host's shards; answers how many entries were applied. */
    private Future<Integer> pass() {
      List<Integer> shards = router.shardMap().shardsOn(host);
      Future<Integer> applied = Future.succeededFuture(0);
      List<Outbox.ShardDepth> depths = new ArrayList<>();
      for (int shard : shards) {
        applied = applied.compose(sum -> drainShard(shard, depths).map(count -> sum + count));
      }
      return applied.compose(sum -> collectTombstonesIfDue(shards).map(sum))
          .onSuccess(sum -> stats.put(host, summarize(depths)));
    }

    private Future<Integer> drainShard(int shard, List<Outbox.ShardDepth> depths) {
      ShardRoute route;
      try {
        route = router.route(shard, Access.WRITE);
      } catch (GraphException readOnlyOrOffline) {
        return Future.succeededFuture(0);
      }
      long now = nowUs();
      return Outbox.due(route.pool(), route, now, settings.batchSize())
          .compose(entries -> processAll(route, entries).map(entries.size()))
          .compose(count -> Outbox.depth(route.pool(), route).map(depth -> {
            depths.add(depth);
            return count;
          }));
    }

    /** Applies the entries {@code parallelism} at a time; a failed entry is rescheduled, never fatal. */
    private Future<Void> processAll(ShardRoute route, List<OutboxEntry> entries) {
      Future<Void> done = Future.succeededFuture();
      for (int start = 0; start < entries.size(); start += parallelism) {
        List<OutboxEntry> group = entries.subList(start, Math.min(entries.size(), start + parallelism));
        done = done.compose(previous -> {
          List<Future<Void>> applying = new ArrayList<>();
          group.forEach(entry -> applying.add(process(route, entry)));
          return Future.join(applying).<Void>mapEmpty().otherwiseEmpty();
        });
      }
      return done;
    }

    private Future<Void> process(ShardRoute route, OutboxEntry entry) {
      Future<?> work = entry.op().edgeTypeId() == Outbox.CASCADE
          ? cascades.run(entry.op().from())
          : writer.apply(entry.op());
      return work
          .compose(changed -> Outbox.delete(route.pool(), route, entry.id()))
          .recover(failure -> reschedule(route, entry, SqlErrors.classify(failure, host)));
    }

    private Future<Void> reschedule(ShardRoute route, OutboxEntry entry, GraphException failure) {
      boolean transientFailure = failure.code() == GraphException.Code.UNAVAILABLE
          || failure.code() == GraphException.Code.ABORTED;
      if (transientFailure) {
        return Outbox.reschedule(route.pool(), route, entry.id(), 0, nowUs() + UNAVAILABLE_RETRY_US, false,
            failure.getMessage());
      }
      int attempts = entry.attempts() + 1;
      boolean park = attempts >= settings.maxAttempts();
      long backoffUs = Math.min(settings.maxBackoff().toNanos() / 1000, 10_000L << Math.min(attempts, 20));
      if (park) {
        log.error("parking outbox entry {} on shard {} after {} attempts: {}", entry.id(), entry.shard(), attempts,
            failure.getMessage());
      }
      return Outbox.reschedule(route.pool(), route, entry.id(), 1, nowUs() + backoffUs, park, failure.getMessage());
    }

    /** Removes tombstones past their grace period, a bounded number per table and pass. */
    private Future<Void> collectTombstonesIfDue(List<Integer> shards) {
      long now = nowUs();
      if (now - lastGcUs < settings.gcInterval().toNanos() / 1000) {
        return Future.succeededFuture();
      }
      lastGcUs = now;
      long cutoff = now - settings.tombstoneGrace().toNanos() / 1000;
      List<Future<?>> deletes = new ArrayList<>();
      for (int shard : shards) {
        ShardRoute route;
        try {
          route = router.route(shard, Access.WRITE);
        } catch (GraphException readOnlyOrOffline) {
          continue;
        }
        for (EdgeType type : schemas.current().edgeTypes().values()) {
          deletes.add(route.pool().preparedQuery("DELETE FROM " + route.table(type.tableName())
              + " WHERE state = 0 AND updated_us < ? LIMIT 1000").execute(Tuple.of(cutoff)));
        }
      }
      return Future.join(deletes).mapEmpty();
    }

    private OutboxStats summarize(List<Outbox.ShardDepth> depths) {
      long pending = 0;
      long parked = 0;
      Long oldest = null;
      for (Outbox.ShardDepth depth : depths) {
        pending += depth.pending();
        parked += depth.parked();
        if (depth.oldestCreatedUs() != null && (oldest == null || depth.oldestCreatedUs() < oldest)) {
          oldest = depth.oldestCreatedUs();
        }
      }
      long age = oldest == null ? 0 : Math.max(0, (nowUs() - oldest) / 1000);
      return new OutboxStats(pending, parked, age);
    }

    void close() {
      leading = false;
      try {
        latch.close();
      } catch (Exception e) {
        log.debug("closing the outbox lease of host {}", host, e);
      }
    }
  }

  private long nowUs() {
    return SqlValues.nowMicros(clock);
  }

  @Override
  public synchronized void close() {
    closed = true;
    drains.values().forEach(HostDrain::close);
    drains.clear();
  }
}
