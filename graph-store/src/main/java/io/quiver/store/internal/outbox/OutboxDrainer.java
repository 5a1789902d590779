package io.quiver.store.internal.outbox;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.store.OutboxStats;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlErrors;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.SqlClient;
import java.time.Clock;
import java.util.ArrayList;
import java.util.Collections;
import java.util.EnumMap;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Drains the outboxes of one host's shards while this server holds the host's lease. Each pass
 * reads the due entries of every shard at once and hands those of each kind to its kind's handler
 * as one batch ({@link OutboxHandlers}; inverse edges in a transaction per host they are written
 * to), one by one should the batch fail; each entry is deleted once done, or rescheduled by the
 * {@link RetryPolicy}. Entries are read in due-time order, so rescheduled ones step aside and a
 * parked one holds up nothing.
 *
 * <p>Between passes that found nothing it waits the idle delay, unless a write commits an entry on
 * the host ({@link #wake}) — a write of this server, or one of another server whose change was
 * announced here — then the next pass starts at once. After a pass that found work it waits the
 * busy pause, which wakes do not cut short, so a busy host's entries gather into fewer, larger
 * passes; a pass that read a full batch from a shard is followed at once, so a backlog drains at
 * full speed. So an inverse follows its write within the busy pause and a pass, and an idle
 * drainer asks one statement of its host per idle delay; the delay bounds only how long an entry
 * waits whose announcement was lost.
 *
 * <p>Every statement goes through {@link ShardClient}, under its deadline, so every pass ends: a
 * host that stops answering fails the pass after one deadline, and the next pass tries again.
 */
final class OutboxDrainer {
  private static final Logger log = LoggerFactory.getLogger(OutboxDrainer.class);

  /** What every host's drainer shares. */
  record Parts(Vertx vertx, Context context, ShardRouter router, ShardClient client, OutboxHandlers handlers,
      RetryPolicy retries, int batchSize, long idleDelayMs, long busyPauseMs, int parallelism, Clock clock) {}

  private final String host;
  private final Parts parts;
  private final TombstoneCollector tombstones;
  private final ChangeSequencer sequencer;
  private volatile boolean running;
  /** What a pass did: entries handled and changes numbered, and whether a shard had more due than one batch. */
  private record Pass(int worked, boolean backlogged) {
    static final Pass NOTHING = new Pass(0, false);
  }

  /**
   * What a pass's drain did: the entries it read, whether a shard had more due than one batch,
   * and the ids of those it handled by shard, which the pass's close deletes.
   */
  private record Drained(int read, boolean backlogged, Map<Integer, List<Long>> handled) {
    static final Drained NOTHING = new Drained(0, false, Map.of());
  }

  /** The pass under way, which stopping waits for. */
  private volatile Future<Pass> inFlight = Future.succeededFuture(Pass.NOTHING);
  /** The timer of the pause between passes; -1 during a pass. Touched on the drainer's context only. */
  private long pause = -1;
  /** Whether the pause under way follows a pass that found work: a wake waits for its end. */
  private boolean pausedBusy;
  /** Whether an entry was committed during the pass under way (so the next starts at once). */
  private boolean woken;
  /** Whether the last pass failed: a run of failures is reported once. */
  private boolean failing;

  OutboxDrainer(String host, Parts parts, TombstoneCollector tombstones, ChangeSequencer sequencer) {
    this.host = host;
    this.parts = parts;
    this.tombstones = tombstones;
    this.sequencer = sequencer;
  }

  void start() {
    running = true;
    parts.context().runOnContext(started -> loop());
  }

  /** Stops after the pass under way, which the answer waits for. */
  Future<Void> stop() {
    running = false;
    return inFlight.<Void>mapEmpty().otherwiseEmpty();
  }

  /**
   * An entry was committed on one of the host's shards: start a pass now, or right after the one
   * under way or the busy pause.
   */
  void wake() {
    parts.context().runOnContext(now -> {
      if (pause != -1 && !pausedBusy && parts.vertx().cancelTimer(pause)) {
        pause = -1;
        loop();
      } else {
        woken = true;
      }
    });
  }

  private void loop() {
    pause = -1;
    if (!running) {
      return;
    }
    woken = false;
    // A pass that throws instead of failing its future must not end the loop: nothing would drain this host again.
    inFlight = Futures.started(this::pass);
    inFlight.onComplete(done -> {
      // A pass cut short by stopping (its pools closing) is not a failure worth reporting.
      // Reported once per run of failures (a host down fails every pass until it is back).
      if (done.failed() && running && !failing) {
        log.warn("outbox pass on host {} failed, retrying every pass until one succeeds: {}", host,
            done.cause().getMessage());
      } else if (done.succeeded() && failing) {
        log.info("outbox passes on host {} succeed again", host);
      }
      failing = done.failed() && running;
      Pass ran = done.succeeded() ? done.result() : Pass.NOTHING;
      // A backlog goes on at once; other work pauses, wakes or not; nothing waits for a wake.
      pausedBusy = ran.worked() > 0 && !ran.backlogged();
      long delay = ran.backlogged() ? 1
          : pausedBusy ? Math.max(1, parts.busyPauseMs())
          : woken ? 1 : parts.idleDelayMs();
      if (running) {
        pause = parts.vertx().setTimer(delay, timer -> loop());
      }
    });
  }

  /**
   * One pass over the host's writable shards; answers how many entries it handled and changes it
   * numbered, and whether a shard had more due than one batch. One statement finds the shards
   * with entries due and those with changes to number ({@link OutboxTable#shardsWithWork}); one
   * more reads the entries of every due shard ({@link #drain}), handled as one batch
   * ({@link #handleAll}). Then one transaction deletes the handled entries and gives the shards'
   * logged changes their positions ({@link #close}): those the first statement found, unless the
   * pass handled entries, which may have logged changes since, and then the sequencer asks again.
   * Last, the tombstones and the change log's trim, when due.
   */
  private Future<Pass> pass() {
    List<ShardRoute> routes = writableShards();
    return (routes.isEmpty() ? Future.succeededFuture(OutboxTable.Work.NONE)
            : parts.client().read(routes.get(0), sql -> OutboxTable.INSTANCE.shardsWithWork(sql, routes, nowUs())))
        .compose(work -> work(routes, work));
  }

  /** The pass's work on what its first statement found: the due shards drained and closed, then the upkeep. */
  private Future<Pass> work(List<ShardRoute> routes, OutboxTable.Work work) {
    return drain(routes.stream().filter(route -> work.due().contains(route.shard())).toList())
        // After the entries: the inverse copies they wrote are logged too, so a pass that handled any asks again.
        .compose(drained -> (drained.read() > 0 ? sequencer.waiting(routes) : Future.succeededFuture(work.unnumbered()))
            .compose(waiting -> close(routes, waiting, drained.handled()))
            .map(numbered -> new Pass(drained.read() + numbered, drained.backlogged())))
        .compose(pass -> tombstones.collectIfDue(routes).compose(collected -> sequencer.trimIfDue(routes)).map(pass));
  }

  /** The host's outbox figures now: one depth statement per writable shard, one for its change logs' lag. */
  Future<OutboxStats> measure() {
    List<ShardRoute> routes = writableShards();
    List<Future<OutboxTable.Depth>> depths = new ArrayList<>();
    for (ShardRoute route : routes) {
      depths.add(parts.client().read(route, sql -> OutboxTable.INSTANCE.depth(sql, route)));
    }
    Future<Long> unnumbered = routes.isEmpty() ? Future.succeededFuture(null)
        : parts.client().read(routes.get(0), sql -> ChangesTable.INSTANCE.oldestUnnumbered(sql, routes));
    return Future.all(Future.all(depths), unnumbered)
        .map(all -> OutboxFigures.of(depths.stream().map(Future::result).toList(), unnumbered.result(), nowUs()));
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

  /**
   * Reads the due entries of every shard of {@code routes} in one statement
   * ({@link OutboxTable#dueOn}) and handles them as one batch, so that the inverses a pass carries
   * from all of its host's shards share one transaction per host they are written to
   * ({@link InverseWriter#applyAll}), not one per shard read.
   */
  private Future<Drained> drain(List<ShardRoute> routes) {
    if (routes.isEmpty()) {
      return Future.succeededFuture(Drained.NOTHING);
    }
    Map<Integer, ShardRoute> byShard = new HashMap<>();
    routes.forEach(route -> byShard.put(route.shard(), route));
    return parts.client()
        .read(routes.get(0), sql -> OutboxTable.INSTANCE.dueOn(sql, routes, nowUs(), parts.batchSize()))
        .compose(due -> {
          boolean backlogged = due.values().stream().anyMatch(shard -> shard.size() >= parts.batchSize());
          List<OutboxEntry> entries = new ArrayList<>();
          due.forEach((shard, stored) -> stored.forEach(entry -> entries.add(OutboxEntry.of(shard, entry))));
          return handleAll(byShard, entries).map(handled -> new Drained(entries.size(), backlogged, handled));
        });
  }

  /**
   * Handles the entries; answers the handled ones' ids by shard, for {@link #close} to delete. Of
   * a node's cascades only the newest is applied ({@link CascadeOrder}; a node's cascades wait on
   * its own shard). The rest go kind by kind, in the kinds' order (inverse edges first), each kind
   * as one batch through its handler ({@link OutboxHandlers#applyAll}: inverse edges in a
   * transaction per host they write, {@link InverseWriter#applyAll}; other kinds one after
   * another); should a batch fail, its entries are handled one by one, {@code parallelism} at a
   * time, so a failing entry is found and rescheduled, never fatal. Should the deletion not happen
   * (a crash, a failed close), the handled entries run again, which their handlers make harmless.
   */
  private Future<Map<Integer, List<Long>>> handleAll(Map<Integer, ShardRoute> routes, List<OutboxEntry> entries) {
    List<OutboxEntry> handled = Collections.synchronizedList(new ArrayList<>());
    List<OutboxEntry> superseded = CascadeOrder.superseded(entries);
    handled.addAll(superseded);
    Map<OutboxOp.Kind, List<OutboxEntry>> byKind = new EnumMap<>(OutboxOp.Kind.class);
    entries.stream().filter(entry -> !superseded.contains(entry))
        .forEach(entry -> byKind.computeIfAbsent(entry.op().kind(), kind -> new ArrayList<>()).add(entry));
    Future<Void> done = Future.succeededFuture();
    for (Map.Entry<OutboxOp.Kind, List<OutboxEntry>> kind : byKind.entrySet()) {
      done = done.compose(previous -> handleKind(routes, kind.getKey(), kind.getValue(), handled));
    }
    return done.map(all -> {
      Map<Integer, List<Long>> byShard = new HashMap<>();
      handled.forEach(entry -> byShard.computeIfAbsent(entry.shard(), shard -> new ArrayList<>()).add(entry.id()));
      // In id order: a batch's entries, appended together, are then one range to delete (OutboxTable#deleteAll).
      byShard.values().forEach(Collections::sort);
      return byShard;
    });
  }

  /**
   * The pass's last transaction on its host: the entries it handled deleted, a statement per
   * shard, and the logged changes of the shards {@code waiting} numbered ({@link
   * ChangeSequencer#number}), all sent at once under one COMMIT (issue 37's census of a busy
   * pass: the deletions had been a COMMIT of their own each, one per shard, beside the numbering's
   * transaction). One shard's deletion with nothing to number is one statement, committed on its
   * own. Should it fail, nothing of it is done: the entries run again at the next pass, which
   * their handlers make harmless, and the changes are numbered then. Answers how many changes it
   * numbered.
   */
  private Future<Integer> close(List<ShardRoute> routes, Set<Integer> waiting, Map<Integer, List<Long>> handled) {
    List<ShardRoute> deleting = routes.stream().filter(route -> handled.containsKey(route.shard())).toList();
    List<ShardRoute> numbering = routes.stream().filter(route -> waiting.contains(route.shard())).toList();
    if (numbering.isEmpty() && deleting.size() <= 1) {
      return deleting.isEmpty() ? Future.succeededFuture(0)
          : parts.client().write(deleting.get(0), sql -> delete(sql, deleting.get(0), handled)).map(0);
    }
    List<ShardRoute> touched = routes.stream()
        .filter(route -> handled.containsKey(route.shard()) || waiting.contains(route.shard())).toList();
    return parts.client().inTransaction(touched, connection -> {
      List<Future<Void>> deleted = new ArrayList<>(deleting.size());
      deleting.forEach(route -> deleted.add(delete(connection, route, handled)));
      Future<Integer> numbered = numbering.isEmpty() ? Future.succeededFuture(0)
          : ChangeSequencer.number(connection, numbering);
      return Future.all(Future.all(deleted), numbered).map(all -> numbered.result());
    });
  }

  /** Deletes the entries the pass handled on {@code route}'s shard: one statement. */
  private static Future<Void> delete(SqlClient sql, ShardRoute route, Map<Integer, List<Long>> handled) {
    return OutboxTable.INSTANCE.deleteAll(sql, route, handled.get(route.shard()));
  }

  /** Entries of one kind as one batch ({@link OutboxHandlers#applyAll}); one by one should it fail. */
  private Future<Void> handleKind(Map<Integer, ShardRoute> routes, OutboxOp.Kind kind, List<OutboxEntry> entries,
      List<OutboxEntry> handled) {
    return Future.join(entries.stream()
            .map(entry -> CascadeOrder.retireOlder(parts.client(), routes.get(entry.shard()), entry)).toList())
        .compose(retired -> parts.handlers().applyAll(kind, entries.stream().map(OutboxEntry::op).toList()))
        .<Void>map(done -> {
          handled.addAll(entries);
          return null;
        })
        .recover(failure -> handleEach(routes, entries, handled));
  }

  /** Handles entries one by one, {@code parallelism} at a time, adding each that succeeds to {@code handled}. */
  private Future<Void> handleEach(Map<Integer, ShardRoute> routes, List<OutboxEntry> entries,
      List<OutboxEntry> handled) {
    Future<Void> done = Future.succeededFuture();
    for (int start = 0; start < entries.size(); start += parts.parallelism()) {
      List<OutboxEntry> group = entries.subList(start, Math.min(entries.size(), start + parts.parallelism()));
      done = done.compose(previous -> {
        List<Future<Void>> handling = new ArrayList<>();
        group.forEach(entry -> handling.add(handle(routes.get(entry.shard()), entry).map(ok -> {
          handled.add(entry);
          return null;
        })));
        return Future.join(handling).<Void>mapEmpty().otherwiseEmpty();
      });
    }
    return done;
  }

  /** Applies one entry; a failure reschedules it and fails the answer (so it is not deleted). */
  private Future<Void> handle(ShardRoute route, OutboxEntry entry) {
    return CascadeOrder.retireOlder(parts.client(), route, entry)
        .compose(retired -> parts.handlers().apply(entry.op())).<Void>mapEmpty()
        .recover(failure -> reschedule(route, entry, SqlErrors.classify(failure, host))
            .compose(rescheduled -> Future.failedFuture(failure)));
  }

  private Future<Void> reschedule(ShardRoute route, OutboxEntry entry, GraphException failure) {
    RetryPolicy.Decision decision = parts.retries().after(failure, entry.attempts());
    if (decision.park()) {
      log.error("parking outbox entry {} on shard {} after {} attempts: {}", entry.id(), entry.shard(),
          entry.attempts() + decision.countedAttempts(), failure.getMessage());
    }
    return parts.client().write(route, sql -> OutboxTable.INSTANCE.reschedule(sql, route, entry.id(),
        decision.countedAttempts(), nowUs() + decision.delayUs(), decision.park(), failure.getMessage()));
  }

  private long nowUs() {
    return SqlValues.nowMicros(parts.clock());
  }
}
