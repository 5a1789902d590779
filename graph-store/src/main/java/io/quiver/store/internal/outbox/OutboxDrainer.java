package io.quiver.store.internal.outbox;

import io.quiver.core.GraphException;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlErrors;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains the outboxes of one host's shards while this server holds the host's lease: passes over
 * the shards, each reading the due entries, handing each to its kind's handler ({@link
 * OutboxHandlers}) {@code parallelism} at a time, and deleting it once done — or rescheduling it
 * by the {@link RetryPolicy}. Entries are read in due-time order, so rescheduled ones step aside
 * and a parked one holds up nothing. Between passes that found nothing it waits the idle delay.
 */
final class OutboxDrainer {
  private static final Logger log = LoggerFactory.getLogger(OutboxDrainer.class);

  /** What every host's drainer shares. */
  record Parts(Vertx vertx, Context context, ShardRouter router, OutboxHandlers handlers, RetryPolicy retries,
      OutboxFigures figures, int batchSize, long idleDelayMs, int parallelism, Clock clock) {}

  private final String host;
  private final Parts parts;
  private final TombstoneCollector tombstones;
  private volatile boolean running;
  /** The pass under way, which stopping waits for. */
  private volatile Future<Integer> inFlight = Future.succeededFuture(0);

  OutboxDrainer(String host, Parts parts, TombstoneCollector tombstones) {
    this.host = host;
    this.parts = parts;
    this.tombstones = tombstones;
  }

  void start() {
    running = true;
    parts.context().runOnContext(started -> loop());
  }

  /** Stops after the pass under way, which the answer waits for. */
  Future<Void> stop() {
    running = false;
    parts.figures().forget(host);
    return inFlight.<Void>mapEmpty().otherwiseEmpty();
  }

  private void loop() {
    if (!running) {
      return;
    }
    inFlight = pass();
    inFlight.onComplete(done -> {
      // A pass cut short by stopping (its pools closing) is not a failure worth reporting.
      if (done.failed() && running) {
        log.warn("outbox pass on host {} failed: {}", host, done.cause().getMessage());
      }
      long delay = done.succeeded() && done.result() > 0 ? 1 : parts.idleDelayMs();
      if (running) {
        parts.vertx().setTimer(delay, timer -> loop());
      }
    });
  }

  /** One pass over the host's writable shards; answers how many entries it handled. */
  private Future<Integer> pass() {
    List<ShardRoute> routes = writableShards();
    List<OutboxTable.Depth> depths = new ArrayList<>();
    Future<Integer> handled = Future.succeededFuture(0);
    for (ShardRoute route : routes) {
      handled = handled.compose(sum -> drainShard(route, depths).map(count -> sum + count));
    }
    return handled
        .compose(sum -> tombstones.collectIfDue(routes).map(sum))
        .onSuccess(sum -> {
          if (running) {
            parts.figures().record(host, depths, nowUs());
          }
        });
  }

  /** A read-only or offline shard is skipped until it is writable again. */
  private List<ShardRoute> writableShards() {
    List<ShardRoute> routes = new ArrayList<>();
    for (int shard : parts.router().shardMap().shardsOn(host)) {
      try {
        routes.add(parts.router().route(shard, Access.WRITE));
      } catch (GraphException readOnlyOrOffline) {
        // skipped this pass
      }
    }
    return routes;
  }

  private Future<Integer> drainShard(ShardRoute route, List<OutboxTable.Depth> depths) {
    return OutboxTable.INSTANCE.due(route.pool(), route, nowUs(), parts.batchSize())
        .compose(entries -> handleAll(route, entries).map(entries.size()))
        .compose(count -> OutboxTable.INSTANCE.depth(route.pool(), route).map(depth -> {
          depths.add(depth);
          return count;
        }));
  }

  /** Handles the entries {@code parallelism} at a time; a failed entry is rescheduled, never fatal. */
  private Future<Void> handleAll(ShardRoute route, List<OutboxEntry> entries) {
    Future<Void> done = Future.succeededFuture();
    for (int start = 0; start < entries.size(); start += parts.parallelism()) {
      List<OutboxEntry> group = entries.subList(start, Math.min(entries.size(), start + parts.parallelism()));
      done = done.compose(previous -> {
        List<Future<Void>> handling = new ArrayList<>();
        group.forEach(entry -> handling.add(handle(route, entry)));
        return Future.join(handling).<Void>mapEmpty().otherwiseEmpty();
      });
    }
    return done;
  }

  private Future<Void> handle(ShardRoute route, OutboxEntry entry) {
    return parts.handlers().apply(entry.op())
        .compose(done -> OutboxTable.INSTANCE.delete(route.pool(), route, entry.id()))
        .recover(failure -> reschedule(route, entry, SqlErrors.classify(failure, host)));
  }

  private Future<Void> reschedule(ShardRoute route, OutboxEntry entry, GraphException failure) {
    RetryPolicy.Decision decision = parts.retries().after(failure, entry.attempts());
    if (decision.park()) {
      log.error("parking outbox entry {} on shard {} after {} attempts: {}", entry.id(), entry.shard(),
          entry.attempts() + decision.countedAttempts(), failure.getMessage());
    }
    return OutboxTable.INSTANCE.reschedule(route.pool(), route, entry.id(), decision.countedAttempts(),
        nowUs() + decision.delayUs(), decision.park(), failure.getMessage());
  }

  private long nowUs() {
    return SqlValues.nowMicros(parts.clock());
  }
}
