package io.quiver.store.internal.outbox;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.store.internal.TailedChanges;
import io.quiver.store.internal.binlog.BinlogTail;
import io.quiver.store.internal.binlog.TailedTransaction;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlErrors;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.internal.table.OutboxTable;
import io.quiver.store.internal.table.TailPositionsTable;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.AsyncResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.IntConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Writes one host's change log from the host's binary log: the log's source when
 * {@code changes.source} is {@code binlog} (docs/design.md, "The change log written from the
 * binary log"). Run beside the host's {@link OutboxDrainer}, under the same lease, so one server
 * tails a host at a time.
 *
 * <h2>How</h2>
 * A {@link BinlogTail} reads every committed transaction of the host's shard databases, on a thread
 * of its own; {@link TailedChanges} makes each one's change-log entries from its row images. Every
 * {@value #BATCH_MS} ms after the first transaction waiting, one transaction on the host writes the
 * entries of everything read since the last batch, each shard's numbered on from its newest
 * position ({@link ChangesTable#appendNumbered}) in the order the binary log holds them — commit
 * order, so no sequencer numbers them after — and moves the host's tail position
 * ({@link TailPositionsTable}) to the GTID position through the batch's last transaction. So what a
 * batch logs and where the tail resumes commit together, and a tailer that dies, or whose batch
 * fails, starts again from the position of its last committed batch: every change is logged once,
 * none twice, none skipped. This is what Debezium and Maxwell do with MySQL's log (their offset
 * kept in Kafka or a table), with the offset committed in the same transaction as the output.
 *
 * <h2>Inverses</h2>
 * The same batch writes the inverse copies its forward copies ask for, so a write leaves its
 * inverse in no outbox ({@code InverseEntries}): every edge row a transaction inserted or updated
 * on a shard whose inverse mark it did not move is a forward copy, and its mirror's operation
 * ({@link TailedChanges#read}) is applied before the batch commits, one transaction per target
 * host ({@link InverseWriter#applyAllLeaving}), idempotent as every inverse write is. Those a host
 * cannot take now (down, read-only) go into their forward copies' outboxes in the batch's own
 * transaction, and the drainer retries them as it retries any entry. So the position moves past
 * a forward copy only once its inverse is written or in an outbox: a tailer that dies in between
 * reads the transaction again and writes the inverse again, to the same row. The design and its
 * measurements: docs/design.md, "Inverses written from the binary log".
 *
 * <h2>What it costs a write</h2>
 * Nothing: a write inserts no change row and no outbox entry, and wakes no sequencer
 * ({@code ChangeWriter}); the change becomes readable, and the inverse written, a batch and a
 * commit after the write's, tens of milliseconds. What it costs the host: one transaction per
 * batch and target host, the tail's reading (a replica's), and the rows themselves. A batch's
 * position is kept at once whenever a transaction it read changed a row it tails — the inverse
 * marks included, which is how {@link TailBarrier} asks for it.
 *
 * <h2>Failures</h2>
 * A tail that ends (its connection lost, an event it cannot read) or a batch that fails ends this
 * round: the tail is closed, what it had read and not committed is dropped, and after
 * {@value #RESTART_MS} ms a new tail starts from the committed position, which reads the dropped
 * transactions again. A second tailer of the host (two servers holding its lease for a moment)
 * finds the position moved under it by the other and stops the same way ({@link
 * TailPositionsTable#readLocked}); the shard's unique positions refuse whichever would number a
 * position twice.
 *
 * <h2>Shard moves</h2>
 * A move's cut-over waits, between its fence and its last catch-up, until this tailer has passed
 * everything its host committed ({@code Repairs#caughtUp}, {@link TailBarrier}): the moving shards'
 * change rows and the outbox entries their inverses leave are written here, on the source, in the
 * shards' own databases, so the catch-up carries them to the target. An entry's shard may be
 * read-only by then, and still takes it ({@link #forwardShard}). The target logs only what is
 * written on it after the flip: the move's channel applies without logging there (a target that
 * logs what it replicates is refused).
 *
 * <h2>Failovers</h2>
 * A host's replicas log what they apply ({@code log_slave_updates}, which adding one in this mode
 * requires), each transaction under its primary's GTID, and the host's tail position is a row of
 * the host's own, replicated with everything else. So a promoted replica's binary log holds every
 * transaction its old primary's tailer had not committed past, under the same GTIDs, and the row
 * says where that was: when the map names a new primary ({@link #follow}), the tail is started
 * again there, from the row, as after any failure. A batch commits only on the primary it tailed
 * (else ABORTED, and a new round on the new one): what the old primary's binary log held and the
 * new one never got (a commit the old one made alone) is never logged as the new one's. Its inverse
 * may have been written already, before the batch, as in the other mode (the failover's repair
 * makes both copies agree).
 */
final class ChangeTailer {
  private static final Logger log = LoggerFactory.getLogger(ChangeTailer.class);
  /** How long a batch gathers after its first transaction arrives. */
  static final long BATCH_MS = 10;
  /** The most transactions one batch commits; a longer backlog goes in several, one after another. */
  static final int MAX_TRANSACTIONS = 2000;
  /** How long a tailer waits to start again after its tail or a batch failed. */
  static final long RESTART_MS = 1000;
  /**
   * How long a position moved only by transactions without changes (the drainer's deletions, say)
   * goes unkept: kept at the next batch after that, so a restart never reads more than this much
   * of the log again for nothing, nor starts from a position the host has purged from its log. A
   * batch that logs changes always keeps its position.
   */
  static final long KEEP_IDLE_MS = 60_000;

  /**
   * What every host's tailer shares.
   *
   * @param inverses writes the inverse copies the tailed forward copies ask for
   * @param outboxWritten told of each shard where a batch left inverses in the outbox, for its drainer
   */
  record Parts(Vertx vertx, Context context, ShardRouter router, ShardClient client, TailedChanges changes,
      InverseWriter inverses, IntConsumer outboxWritten, String user, String password, Clock clock) {}

  private final String host;
  private final Parts parts;
  private final AtomicBoolean scheduled = new AtomicBoolean();
  private volatile boolean running;

  /** A transaction the tail delivered, and when. */
  private record Arrived(TailedTransaction transaction, long atMs) {}

  /** The transactions the current tail delivered and no batch has taken yet; a new queue per tail. */
  private volatile ConcurrentLinkedQueue<Arrived> queue = new ConcurrentLinkedQueue<>();
  /** When the oldest transaction of the batch being committed arrived; -1 while no batch is under way. */
  private volatile long committingSinceMs = -1;
  /** Since when no tail has run (not yet started, or ended and not yet started again); -1 while one runs. */
  private volatile long downSinceMs;
  // Touched on the context only.
  private BinlogTail tail;
  /** The primary ({@code host:port}) the current tail reads, or the one it is being opened on. */
  private String tailedPrimary;
  /** The position the host's row holds, as this tailer last read or wrote it. */
  private String committed;
  private long committedAtMs;
  /** Per shard, the newest position given, once read; cleared when the shard map changes or a round ends. */
  private final Map<Integer, Long> newest = new HashMap<>();
  private long mapVersion = -1;
  private boolean failing;
  private Future<Void> inFlight = Future.succeededFuture();

  ChangeTailer(String host, Parts parts) {
    this.host = host;
    this.parts = parts;
    this.downSinceMs = parts.clock().millis();
  }

  /**
   * How long the changes this tailer has still to log (and the inverses to write) may have waited:
   * since the oldest transaction read and not yet committed arrived, or, while no tail runs, since
   * it stopped; 0 when it has logged all it read. The host's change-log lag in binlog mode
   * ({@link io.quiver.store.OutboxStats#changeLogLagMillis}).
   */
  long lagMillis() {
    long now = parts.clock().millis();
    long down = downSinceMs;
    if (down >= 0) {
      return Math.max(0, now - down);
    }
    long committingSince = committingSinceMs;
    Arrived oldest = queue.peek();
    long since = committingSince >= 0 ? committingSince : oldest != null ? oldest.atMs() : -1;
    return since < 0 ? 0 : Math.max(0, now - since);
  }

  void start() {
    running = true;
    parts.context().runOnContext(started -> connect());
  }

  /** Stops tailing; the answer waits for the batch under way. */
  Future<Void> stop() {
    running = false;
    parts.context().runOnContext(stopping -> closeTail());
    return inFlight.otherwiseEmpty();
  }

  /** The first readable shard of {@code host}, routed to its primary; null when the host holds none. */
  static ShardRoute onHost(ShardRouter router, String host) {
    for (int shard : router.shardMap().shardsOn(host)) {
      try {
        return router.route(shard, Access.READ);
      } catch (GraphException offline) {
        // the next one
      }
    }
    return null;
  }

  /**
   * The shard map changed: if it names another primary for the host (a failover, a switchover),
   * the tail on the old one ends, and a new round starts on the new one from the kept position.
   */
  void follow(ShardMap map) {
    parts.context().runOnContext(changed -> {
      Host address = map.hosts().get(host);
      if (running && tail != null && address != null && !address.primary().equals(tailedPrimary)) {
        restart(GraphException.unavailable("host " + host + "'s primary is now " + address.primary()
            + ", not " + tailedPrimary));
      }
    });
  }

  /** Reads the host's kept position and starts a tail there. */
  private void connect() {
    if (!running) {
      return;
    }
    ShardRoute route = onHost(parts.router(), host);
    Host address = parts.router().shardMap().hosts().get(host);
    if (route == null || address == null) {
      parts.vertx().setTimer(RESTART_MS, later -> connect());
      return;
    }
    tailedPrimary = address.primary();
    ConcurrentLinkedQueue<Arrived> delivered = new ConcurrentLinkedQueue<>();
    parts.client().write(route, sql -> TailPositionsTable.INSTANCE.read(sql, host)
            .recover(failure -> SqlErrors.missingTable(failure) ? Future.succeededFuture(null)
                : Future.failedFuture(failure))
            .compose(kept -> kept != null ? Future.succeededFuture(kept) : unprovisioned(sql)))
        .compose(position -> parts.vertx().executeBlocking(() -> BinlogTail.start(settings(address), position,
                parts.changes().tables(), transaction -> deliver(delivered, transaction)))
            .map(started -> {
              committed = position;
              return started;
            }))
        .onComplete(started -> {
          if (started.failed()) {
            restart(started.cause());
            return;
          }
          BinlogTail opened = started.result();
          if (!running) {
            tail = opened;
            closeTail();
            return;
          }
          tail = opened;
          queue = delivered;
          committedAtMs = parts.clock().millis();
          downSinceMs = -1;
          if (failing) {
            log.info("the change log of host {} is tailed again from {}", host, committed);
          }
          failing = false;
          opened.ended().whenComplete((cause, thrown) -> parts.context().runOnContext(ended -> {
            if (tail == opened && cause != null) {
              restart(cause);
            }
          }));
          // The map may have named another primary while this tail opened.
          follow(parts.router().shardMap());
          if (!delivered.isEmpty()) {
            schedule();
          }
        });
  }

  /**
   * A host provisioned before tail positions were: its position kept as where its binary log is
   * now, so changes made before this moment are not logged — said, since it should not happen on a
   * host provisioned by this version.
   */
  private Future<String> unprovisioned(SqlClient sql) {
    log.warn("host {} keeps no tail position (provisioned by an older version?): its change log begins now", host);
    return TailPositionsTable.INSTANCE.provision(sql, host)
        .compose(provisioned -> TailPositionsTable.INSTANCE.read(sql, host));
  }

  private BinlogTail.Settings settings(Host address) {
    return new BinlogTail.Settings(address.primaryHost(), address.primaryPort(), parts.user(), parts.password(),
        ThreadLocalRandom.current().nextLong(1L << 31, 1L << 32));
  }

  /** On the tail's thread: queues the transaction, and has a batch taken {@value #BATCH_MS} ms after the first waiting. */
  private void deliver(ConcurrentLinkedQueue<Arrived> delivered, TailedTransaction transaction) {
    delivered.add(new Arrived(transaction, parts.clock().millis()));
    if (delivered == queue) {
      schedule();
    }
  }

  private void schedule() {
    if (scheduled.compareAndSet(false, true)) {
      parts.context().runOnContext(now -> parts.vertx().setTimer(BATCH_MS, fired -> batch()));
    }
  }

  /** Takes what waits and commits it, unless a batch is under way (then it follows that one). */
  private void batch() {
    scheduled.set(false);
    if (committingSinceMs >= 0 || tail == null) {
      return;
    }
    List<TailedTransaction> taken = new ArrayList<>();
    long firstArrivedMs = -1;
    for (Arrived next; taken.size() < MAX_TRANSACTIONS && (next = queue.poll()) != null; ) {
      firstArrivedMs = taken.isEmpty() ? next.atMs() : firstArrivedMs;
      taken.add(next.transaction());
    }
    if (taken.isEmpty()) {
      return;
    }
    Map<Integer, List<ChangesTable.Entry>> entries = new LinkedHashMap<>();
    List<InverseOp> inverses = new ArrayList<>();
    boolean rows = false;
    for (TailedTransaction transaction : taken) {
      TailedChanges.Tailed read = parts.changes().read(transaction);
      read.entries().forEach((shard, made) -> entries.computeIfAbsent(shard, s -> new ArrayList<>()).addAll(made));
      inverses.addAll(read.inverses());
      rows |= !transaction.rows().isEmpty();
    }
    String through = taken.get(taken.size() - 1).through();
    if (!rows && parts.clock().millis() - committedAtMs < KEEP_IDLE_MS) {
      // Nothing to keep yet; a backlog longer than one batch goes on at once, not at the next arrival.
      if (!queue.isEmpty()) {
        schedule();
      }
      return;
    }
    committingSinceMs = firstArrivedMs;
    BinlogTail round = tail;
    inFlight = parts.inverses().applyAllLeaving(inverses, InverseWriter.Announce.EDGES)
        .compose(left -> commit(entries, left, through))
        .andThen(done -> batched(done, round));
  }

  /** A batch of {@code round}'s tail is done: a failure starts the tail again, a backlog goes on. */
  private void batched(AsyncResult<Void> done, BinlogTail round) {
    if (done.failed()) {
      if (tail == round) {
        restart(done.cause());
      }
    } else if (!queue.isEmpty()) {
      schedule();
    }
    committingSinceMs = -1;
  }

  /**
   * One transaction on the host: the position checked to be this tailer's, every shard's entries
   * numbered on, the inverses that could not be written ({@code left}) put in their forward copies'
   * outboxes, and the position moved to {@code through}.
   */
  private Future<Void> commit(Map<Integer, List<ChangesTable.Entry>> entries, List<InverseOp> left,
      String through) {
    ShardMap map = parts.router().shardMap();
    if (map.version() != mapVersion) {
      newest.clear();
      mapVersion = map.version();
    }
    ShardRoute route = onHost(parts.router(), host);
    if (route == null) {
      return Future.failedFuture(GraphException.unavailable("host " + host + " holds no readable shard"));
    }
    // Read after the route was taken: a route to another primary than the tailed one shows here.
    Host address = parts.router().shardMap().hosts().get(host);
    if (address == null || !address.primary().equals(tailedPrimary)) {
      return Future.failedFuture(GraphException.of(GraphException.Code.ABORTED, "host " + host
          + "'s primary changed under the tail of " + tailedPrimary + ": its batch is read again from the new one"));
    }
    String expected = committed;
    long writtenUs = SqlValues.nowMicros(parts.clock());
    Map<Integer, Long> next = new HashMap<>();
    return parts.client().inTransaction(route, connection -> {
          Future<Void> ours = TailPositionsTable.INSTANCE.readLocked(connection, host)
              .compose(held -> expected.equals(held) ? Future.<Void>succeededFuture()
                  : Future.failedFuture(GraphException.of(GraphException.Code.ABORTED, "the tail position of host "
                      + host + " is " + held + ", not " + expected + " as this tailer left it: another tailer runs")));
          return newestOf(connection, entries.keySet()).compose(known -> {
            List<Future<Void>> written = new ArrayList<>();
            entries.forEach((shard, made) -> {
              long first = known.get(shard) + 1;
              written.add(ChangesTable.INSTANCE.appendNumbered(connection, shard, first, made, writtenUs));
              next.put(shard, first + made.size() - 1);
            });
            byForwardShard(left).forEach((shard, ops) -> written.add(Futures.started(() -> {
              ShardRoute onShard = forwardShard(shard);
              return OutboxTable.INSTANCE.appendMany(connection, onShard, ops.stream().map(InverseOp::columns).toList(),
                  writtenUs, writtenUs).<Void>mapEmpty();
            })));
            written.add(TailPositionsTable.INSTANCE.write(connection, host, through));
            return Future.all(ours, Future.all(written)).<Void>mapEmpty();
          });
        })
        .onSuccess(done -> {
          committed = through;
          committedAtMs = parts.clock().millis();
          newest.putAll(next);
          byForwardShard(left).keySet().forEach(parts.outboxWritten()::accept);
        });
  }

  /**
   * Where the outbox entries of {@code shard}'s forward copies go: the shard on this host, even
   * read-only. A shard turns read-only for a move's cut-over, after its last writes committed; the
   * entries their inverses leave are the source's to hand over, and the cut-over waits for them
   * ({@code Repairs#caughtUp}) before its last catch-up carries them to the target. A shard that
   * has left the host had every forward copy of its own read here before it left, so finding one
   * fails the batch rather than write where no one reads.
   */
  private ShardRoute forwardShard(int shard) {
    ShardRoute route = parts.router().route(shard, Access.READ);
    if (!route.host().equals(host)) {
      throw GraphException.of(GraphException.Code.ABORTED, "shard " + shard + " has left host " + host
          + " for " + route.host() + " with inverses of its forward copies unwritten");
    }
    return route;
  }

  /** Inverse operations by the shard of the forward copy that asked for each: where its outbox entry goes. */
  private static Map<Integer, List<InverseOp>> byForwardShard(List<InverseOp> ops) {
    Map<Integer, List<InverseOp>> byShard = new LinkedHashMap<>();
    ops.forEach(op -> byShard.computeIfAbsent(op.to().shard(), shard -> new ArrayList<>()).add(op));
    return byShard;
  }

  /** Each shard's newest position: those known, and those not yet read, each read in the transaction. */
  private Future<Map<Integer, Long>> newestOf(SqlConnection connection, Iterable<Integer> shards) {
    Map<Integer, Future<Long>> reads = new HashMap<>();
    for (int shard : shards) {
      reads.put(shard, newest.containsKey(shard) ? Future.succeededFuture(newest.get(shard))
          : ChangesTable.INSTANCE.newest(connection, shard));
    }
    return Future.all(new ArrayList<>(reads.values())).map(all -> {
      Map<Integer, Long> known = new HashMap<>();
      reads.forEach((shard, read) -> known.put(shard, read.result()));
      return known;
    });
  }

  /** Ends this round (the tail and what it read unlogged dropped) and starts another from the committed position. */
  private void restart(Throwable cause) {
    if (running && !failing) {
      log.warn("tailing the change log of host {} stopped, starting again from {} every {} ms until it runs: {}",
          host, committed, RESTART_MS, cause.getMessage());
    }
    failing = running;
    closeTail();
    if (running) {
      parts.vertx().setTimer(RESTART_MS, later -> connect());
    }
  }

  private void closeTail() {
    if (downSinceMs < 0) {
      // What was read and not logged has waited since it arrived: the lag goes on from there.
      downSinceMs = parts.clock().millis() - lagMillis();
    }
    BinlogTail closing = tail;
    tail = null;
    queue = new ConcurrentLinkedQueue<>();
    newest.clear();
    if (closing != null) {
      // The library's disconnect waits for its reading thread: never on the event loop.
      parts.vertx().executeBlocking(() -> {
        closing.close();
        return null;
      });
    }
  }
}
