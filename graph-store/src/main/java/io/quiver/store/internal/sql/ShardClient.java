package io.quiver.store.internal.sql;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.store.PoolSettings;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.internal.SqlConnectionInternal;
import java.util.List;
import java.util.OptionalLong;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Runs statements on a shard. The one place that owns transactions: begin, commit, rollback
 * (re-failing with the original error) and release, and the retry of a transaction that lost a
 * deadlock or a lock wait (MySQL 1213, 1205). Every failure leaves here as a
 * {@link GraphException}.
 *
 * <h2>Deadlines</h2>
 * A host can stop answering without closing anything (see {@link HostHealth}); the MySQL protocol
 * has no deadline of its own, so every statement gets one here. A statement outside a transaction
 * is answered UNAVAILABLE after the pool's acquire timeout and {@link PoolSettings#statementTimeout()}
 * together. A transaction waits for its connection at most the acquire timeout — and a grace, since
 * the pool can lose its own answer ({@link #borrowed}) — and gets {@code statementTimeout} from the
 * moment it holds one,
 * and what it does when that passes is the point: a transaction whose work has not finished is
 * <em>abandoned</em> — the caller is answered at once, and when the host answers again the work
 * finds it abandoned and rolls back instead of committing. So a request answered 503 never
 * commits later. Only a deadline passing while COMMIT itself is in flight leaves the outcome
 * unknown, and the answer says so. The statement a deadline gave up on is then killed on its host
 * ({@link QueryKiller}), so its connection comes back; every COMMIT is timed ({@link CommitWatch}),
 * so a host whose commits stall is reported degraded rather than merely slow.
 *
 * <h2>What a transaction's work may send</h2>
 * The work is lent the connection, not given it ({@link LentConnection}): once COMMIT or ROLLBACK
 * is sent, a statement the work still sends — a branch of it that was waiting when another failed
 * — is refused unsent, before or after the connection has gone back to the pool. Otherwise that
 * statement would run after the ROLLBACK committed on its own, or in the next borrower's
 * transaction. A COMMIT or a BEGIN that fails leaves the outcome unknown, and the
 * answer says so (503, "may or may not have been applied").
 *
 * <h2>Retries</h2>
 * A transaction aborted by a lock conflict (MySQL 1213, 1205) is run again whole, up to
 * {@link #MAX_ATTEMPTS}. Work that no caller waits on with a deadline of its own — a bulk
 * import's batch — may also ask ({@link Retry#UNWRITTEN}) that a failure which wrote nothing be
 * run again: no connection lent (the pool's wait timed out), the work refused or failed before
 * COMMIT was sent, the transaction abandoned at its deadline and rolled back. A failure after
 * COMMIT was sent (or BEGIN failed) is never retried: the write may have committed, and only
 * the caller can judge whether to send it again. So an import is not ended by a moment's
 * overload of a busy host, and a retried transaction cannot write twice.
 *
 * <h2>Writes and the shard map</h2>
 * Every statement and transaction on a route taken for writing is counted in flight under the
 * shard-map version it began under ({@link MapWrites}), from BEGIN until the database answers —
 * not until the deadline; a transaction whose connection is lost under it, until its deadline has
 * passed and the loss is seen, since the SQL client never answers some of what was sent on a lost
 * connection — and refused UNAVAILABLE if the map has meanwhile made its shard read-only or moved
 * it. A shard move's cut-over waits on that count on every server. Where the change log and the
 * inverses are read from the binary log, a write to a host whose binary log is off is refused
 * unsent too ({@link CommitWatch#refusesWrites}): it would commit where no tail reads it.
 *
 * <h2>Hedged reads</h2>
 * A stale-tolerant read whose route carries a {@link ShardRoute.Hedge} is sent to the primary; if
 * the primary has not answered within the hedge's delay, or fails as unavailable, the same read is
 * sent to the replica too, and the first answer wins — Pinterest's speculative reads to a standby,
 * "The Tail at Scale"'s hedged requests. The loser's answer is dropped; reads have no effect, so
 * running one twice costs only the second's work. A failure is answered only when both have failed,
 * the primary's first.
 */
public final class ShardClient {
  private static final Logger log = LoggerFactory.getLogger(ShardClient.class);
  /** Attempts of one transaction before an ABORTED failure is handed to the caller. */
  public static final int MAX_ATTEMPTS = 3;
  private static final long BASE_BACKOFF_MS = 5;
  /** Attempts of one transaction retried while it fails having written nothing ({@link Retry#UNWRITTEN}). */
  public static final int UNWRITTEN_ATTEMPTS = 5;
  /** The first wait before such a retry; each next one waits twice as long (200, 400, 800, 1,600 ms). */
  static final long UNWRITTEN_BACKOFF_MS = 200;
  /** How long after the pool's acquire timeout a connection not lent is answered here ({@link #borrowed}). */
  static final long LEND_GRACE_MS = 500;
  /** How often a transaction past its deadline is asked whether its connection was lost ({@code watchOverdue}). */
  private static final long OVERDUE_CHECK_MS = 250;

  /** Which failures of a transaction are run again. */
  public enum Retry {
    /** Only an abort by a lock conflict: a request's transactions, whose caller has its own deadline. */
    ABORTED,
    /**
     * Also an UNAVAILABLE failure that wrote nothing, up to {@link #UNWRITTEN_ATTEMPTS} with a
     * doubling backoff: work no caller waits on with a deadline (a bulk import's batch). The work
     * must have no effect outside its transaction.
     */
    UNWRITTEN
  }

  private final Vertx vertx;
  private final PoolSettings settings;
  private final MapWrites fence;
  private final CommitWatch commits;
  private final QueryKiller killer;
  /** Reads a replica answered (routed there, or a hedge that won), and hedges sent. */
  private final java.util.concurrent.atomic.LongAdder replicaAnswers = new java.util.concurrent.atomic.LongAdder();
  private final java.util.concurrent.atomic.LongAdder hedgesSent = new java.util.concurrent.atomic.LongAdder();

  /** A client whose stalled COMMITs and overdue statements nobody watches (a test's). */
  public ShardClient(Vertx vertx, PoolSettings settings, MapWrites fence) {
    this(vertx, settings, fence, new CommitWatch(java.time.Clock.systemUTC()),
        new QueryKiller(settings.statementTimeout().toMillis()));
  }

  /**
   * @param fence counts every write in flight per shard-map version, and refuses one the map no longer allows
   * @param commits told of every COMMIT sent and answered, so a host whose commits stall is seen
   * @param killer told of every deadline that passed, so that the statement behind it is killed
   */
  public ShardClient(Vertx vertx, PoolSettings settings, MapWrites fence, CommitWatch commits, QueryKiller killer) {
    this.vertx = vertx;
    this.settings = settings;
    this.fence = fence;
    this.commits = commits;
    this.killer = killer;
  }

  /**
   * Reads outside a transaction, on the route's pool — hedged to a replica when the route carries
   * one; failures leave classified.
   */
  public <T> Future<T> read(ShardRoute route, Function<SqlClient, Future<T>> work) {
    if (route.hedge() != null) {
      return new HedgedRead<>(route, work).answer.future();
    }
    if (route.replica() != null) {
      replicaAnswers.increment();
    }
    return outsideTransaction(route, work);
  }

  /** Reads a replica answered since start: routed there because the primary was down, or a hedge that won. */
  public long replicaAnswers() {
    return replicaAnswers.sum();
  }

  /** Hedges sent since start: stale-tolerant reads also sent to a replica because the primary was slow or failed. */
  public long hedgesSent() {
    return hedgesSent.sum();
  }

  /**
   * Writes outside a transaction, each statement committed on its own (an outbox entry deleted or
   * rescheduled, a claim inserted or released), on the shard's pool; counted by the map's fence
   * when the route was taken for writing, as a transaction is. Failures leave classified.
   */
  public <T> Future<T> write(ShardRoute route, Function<SqlClient, Future<T>> work) {
    return outsideTransaction(route, work);
  }

  private <T> Future<T> outsideTransaction(ShardRoute route, Function<SqlClient, Future<T>> work) {
    GraphException unlogged = unlogged(route);
    if (unlogged != null) {
      return Future.failedFuture(unlogged);
    }
    long bound = settings.acquireTimeout().toMillis() + settings.statementTimeout().toMillis();
    Future<T> running = route.write() ? fence.write(route, () -> started(work, route.pool())) : started(work, route.pool());
    return withDeadline(running, bound, () -> notAnswering(route, bound, ""))
        .recover(failure -> Future.failedFuture(classified(route, failure)));
  }

  /**
   * What a statement's or a transaction's failure is answered as ({@link SqlErrors#classify}); one
   * the host refused for lack of space or memory is told to the {@link CommitWatch} first.
   */
  private GraphException classified(ShardRoute route, Throwable failure) {
    int refusal = SqlErrors.outOfSpaceOrMemory(failure);
    if (refusal != 0) {
      commits.refused(route.host(), refusal);
    }
    return SqlErrors.classify(failure, route.host());
  }

  /**
   * Runs {@code work} in a transaction on the shard's host, retried whole while it is aborted
   * by a lock conflict. The work must therefore have no effect outside the transaction.
   */
  public <T> Future<T> inTransaction(ShardRoute route, Function<SqlConnection, Future<T>> work) {
    return attempt(List.of(route), Retry.ABORTED, work, 1);
  }

  /**
   * {@link #inTransaction(ShardRoute, Function)}, retried as {@code retry} says: with {@link
   * Retry#UNWRITTEN}, also while it fails having written nothing.
   */
  public <T> Future<T> inTransaction(ShardRoute route, Retry retry, Function<SqlConnection, Future<T>> work) {
    return attempt(List.of(route), retry, work, 1);
  }

  /**
   * {@link #inTransaction(ShardRoute, Function)} for work that writes several shards of one host
   * in one transaction ({@link GroupCommit}, the change log's sequencer): on the first route's
   * pool, counted by the map's fence once and refused unless the map lets every route write.
   */
  public <T> Future<T> inTransaction(List<ShardRoute> routes, Function<SqlConnection, Future<T>> work) {
    return attempt(routes, Retry.ABORTED, work, 1);
  }

  private <T> Future<T> attempt(
      List<ShardRoute> routes, Retry retry, Function<SqlConnection, Future<T>> work, int attempt) {
    ShardRoute route = routes.get(0);
    GraphException unlogged = unlogged(route);
    if (unlogged != null) {
      return Future.failedFuture(unlogged);
    }
    return borrowed(route).transform(lent -> {
      if (lent.failed()) {
        return again(retry, classified(route, noConnection(route, lent.cause())), true, attempt, route,
            () -> attempt(routes, retry, work, attempt + 1));
      }
      Transaction transaction = new Transaction(routes, lent.result());
      return transaction.run(work).recover(failure -> again(retry, classified(route, failure),
          !transaction.mayHaveWritten(), attempt, route, () -> attempt(routes, retry, work, attempt + 1)));
    });
  }

  /**
   * A connection of the route's pool, or a failure once none is lent within the pool's acquire
   * timeout and {@link #LEND_GRACE_MS} more. The pool answers its own timeout; this deadline is for
   * the answer it loses. In vertx-sql-client 5.0.10 a waiter served at the very moment its timer
   * fires is answered by neither: the timer's cancel finds it already served, and the lease,
   * arriving after the timer fired, is recycled unanswered (SqlConnectionPool.PoolRequest, since
   * #1620/#1621). Rare, but under a failover's exhausted pools it left a write unanswered for good.
   * A connection lent after this deadline has answered goes straight back to the pool.
   */
  private Future<SqlConnection> borrowed(ShardRoute route) {
    long bound = settings.acquireTimeout().toMillis() + LEND_GRACE_MS;
    return withDeadline(route.pool().getConnection(), bound, SqlConnection::close,
        () -> GraphException.unavailable(route.target() + " lent no connection within " + bound
            + " ms (mysql.acquireTimeoutMs and " + LEND_GRACE_MS + " ms)"));
  }

  /**
   * Why a write on {@code route} is refused before anything is sent, or null: its host's binary log
   * is off, and the change log and the inverses are read from it ({@link CommitWatch#refusesWrites}).
   */
  private GraphException unlogged(ShardRoute route) {
    String why = route.write() ? commits.refusesWrites(route.host()) : null;
    return why == null ? null : GraphException.unavailable(route.target() + " refuses writes: " + why
        + "; the change log and the inverses are read from it (changes.source: binlog), so nothing was written");
  }

  /**
   * No connection was lent — the pool's wait or a connect to a host that hangs timed out — so no
   * statement was sent: the answer says so, as an abandoned transaction's does.
   */
  private static GraphException noConnection(ShardRoute route, Throwable failure) {
    GraphException why = SqlErrors.classify(failure, route.host());
    return GraphException.of(why.code(), why.getMessage() + "; no transaction began, nothing was written", failure);
  }

  /**
   * Sends {@code next} (attempt {@code attempt + 1}) after a backoff if {@code retry} retries
   * {@code failure} and attempts are left ({@link #retryDelay}); else answers the failure. Shared by
   * transactions and reads.
   */
  private <T> Future<T> again(Retry retry, GraphException failure, boolean wroteNothing, int attempt,
      ShardRoute route, Supplier<Future<T>> next) {
    OptionalLong delay = retryDelay(retry, failure, wroteNothing, attempt);
    if (delay.isEmpty()) {
      return Future.failedFuture(failure);
    }
    if (failure.code() == GraphException.Code.UNAVAILABLE) {
      log.info("{}: retrying in {} ms what wrote nothing (attempt {} of {}): {}", route.target(),
          delay.getAsLong(), attempt + 1, UNWRITTEN_ATTEMPTS, failure.getMessage());
    }
    return vertx.timer(delay.getAsLong()).compose(fired -> next.get());
  }

  /**
   * How long to wait before attempt {@code attempt + 1} of work that failed with {@code failure},
   * or empty when it is not run again: an abort by a lock conflict after a short backoff; with
   * {@link Retry#UNWRITTEN}, an UNAVAILABLE failure that wrote nothing after a doubling one, long
   * enough for a pool's connections to come back or an abandoned statement to be killed.
   */
  private static OptionalLong retryDelay(Retry retry, GraphException failure, boolean wroteNothing, int attempt) {
    if (failure.code() == GraphException.Code.ABORTED && attempt < MAX_ATTEMPTS) {
      return OptionalLong.of(BASE_BACKOFF_MS * attempt + ThreadLocalRandom.current().nextLong(BASE_BACKOFF_MS));
    }
    if (retry == Retry.UNWRITTEN && wroteNothing && failure.code() == GraphException.Code.UNAVAILABLE
        && attempt < UNWRITTEN_ATTEMPTS) {
      return OptionalLong.of(UNWRITTEN_BACKOFF_MS << (attempt - 1));
    }
    return OptionalLong.empty();
  }

  /**
   * {@link #read(ShardRoute, Function)}, retried as {@code retry} says: with {@link
   * Retry#UNWRITTEN}, while it fails UNAVAILABLE (a read writes nothing).
   */
  public <T> Future<T> read(ShardRoute route, Retry retry, Function<SqlClient, Future<T>> work) {
    return readAttempt(route, retry, work, 1);
  }

  private <T> Future<T> readAttempt(ShardRoute route, Retry retry, Function<SqlClient, Future<T>> work, int attempt) {
    return read(route, work).recover(failure -> again(retry, SqlErrors.classify(failure, route.host()), true,
        attempt, route, () -> readAttempt(route, retry, work, attempt + 1)));
  }

  /** One hedged read: the primary asked, the replica asked too if the primary is slow or fails, the first answer kept. */
  private final class HedgedRead<T> {
    private final ShardRoute route;
    private final Function<SqlClient, Future<T>> work;
    private final Promise<T> answer = Promise.promise();
    private final long timer;
    private boolean hedged;
    private Throwable primaryFailed;
    private Throwable hedgeFailed;

    HedgedRead(ShardRoute route, Function<SqlClient, Future<T>> work) {
      this.route = route;
      this.work = work;
      this.timer = vertx.setTimer(Math.max(1, route.hedge().afterMillis()), fired -> hedge());
      outsideTransaction(route, work).onComplete(done -> {
        vertx.cancelTimer(timer);
        if (done.succeeded()) {
          answer.tryComplete(done.result());
        } else {
          primaryFailed(done.cause());
        }
      });
    }

    private synchronized void primaryFailed(Throwable failure) {
      primaryFailed = failure;
      boolean hostTrouble = failure instanceof GraphException graph && graph.code() == GraphException.Code.UNAVAILABLE;
      if (!hostTrouble || hedgeFailed != null) {
        answer.tryFail(failure);
      } else if (!hedged) {
        hedge();
      }
    }

    private synchronized void hedge() {
      if (hedged || answer.future().isComplete()) {
        return;
      }
      hedged = true;
      hedgesSent.increment();
      outsideTransaction(route.toHedge(), work).onComplete(done -> {
        if (done.succeeded()) {
          if (answer.tryComplete(done.result())) {
            replicaAnswers.increment();
          }
        } else {
          hedgeFailed(done.cause());
        }
      });
    }

    private synchronized void hedgeFailed(Throwable failure) {
      hedgeFailed = failure;
      if (primaryFailed != null) {
        answer.tryFail(primaryFailed);
      }
    }
  }

  /** {@code running}'s outcome, or {@code late}'s failure if it has none within {@code boundMs}. */
  private <T> Future<T> withDeadline(Future<T> running, long boundMs, Supplier<GraphException> late) {
    return withDeadline(running, boundMs, unwanted -> {}, late);
  }

  /**
   * {@code running}'s outcome, or {@code late}'s failure if it has none within {@code boundMs}; a
   * result that comes after that failure was answered is handed to {@code unwanted}.
   */
  private <T> Future<T> withDeadline(Future<T> running, long boundMs, Consumer<T> unwanted,
      Supplier<GraphException> late) {
    if (running.isComplete()) {
      return running;
    }
    Promise<T> answer = Promise.promise();
    long timer = vertx.setTimer(boundMs, fired -> answer.tryFail(late.get()));
    running.onComplete(done -> {
      vertx.cancelTimer(timer);
      if (done.succeeded()) {
        if (!answer.tryComplete(done.result())) {
          unwanted.accept(done.result());
        }
      } else {
        answer.tryFail(done.cause());
      }
    });
    return answer.future();
  }

  /**
   * Whether {@code connection}'s socket has closed. The SQL client answers it only through its
   * internal API: a pooled connection's own connection, whose {@code isValid} is false once closed.
   */
  private static boolean closed(SqlConnection connection) {
    return connection instanceof SqlConnectionInternal pooled && !pooled.unwrap().unwrap().isValid();
  }

  /** {@code work} begun on {@code client}; what it throws is its failure (a method answering a Future never throws). */
  private static <C, T> Future<T> started(Function<C, Future<T>> work, C client) {
    return Futures.started(() -> work.apply(client));
  }

  /** A deadline passed on {@code route}'s host: the statement behind it is to be killed ({@link QueryKiller}). */
  private GraphException notAnswering(ShardRoute route, long boundMs, String outcome) {
    if (route.replica() == null) {
      // The killer sweeps primaries' sessions; nothing sweeps a replica, whose overdue read only holds a connection.
      killer.deadlinePassed(route.host());
    }
    return GraphException.unavailable(route.target() + " did not answer within " + boundMs
        + " ms (mysql.statementTimeoutMs)" + outcome);
  }

  /**
   * One attempt of a transaction on a borrowed connection, under the statement deadline. Its
   * state moves once, from working to committing (COMMIT sent) or to abandoned (the deadline
   * passed first), so commit and abandonment exclude each other.
   */
  private final class Transaction {
    private static final int WORKING = 0;
    private static final int COMMITTING = 1;
    private static final int ABANDONED = 2;
    private static final String ROLLED_BACK = "; the transaction is rolled back, nothing was written";
    private static final String MAY_HAVE_COMMITTED = "; the write may or may not have been applied";

    /** The shards the work writes, all on one host: the first names the host and lent the connection. */
    private final List<ShardRoute> routes;
    private final ShardRoute route;
    private final SqlConnection connection;
    /** What the work is lent: it refuses every statement once the transaction ends ({@link LentConnection}). */
    private final LentConnection lent;
    private final AtomicInteger state = new AtomicInteger(WORKING);
    /** Set when BEGIN failed with the work's statements behind it, each of which may have committed on its own. */
    private volatile boolean failedToBegin;

    Transaction(List<ShardRoute> routes, SqlConnection connection) {
      this.routes = routes;
      this.route = routes.get(0);
      this.connection = connection;
      this.lent = new LentConnection(connection);
    }

    /** Whether this transaction may have written: COMMIT was sent, or BEGIN failed with statements behind it. */
    boolean mayHaveWritten() {
      return failedToBegin || state.get() == COMMITTING;
    }

    <T> Future<T> run(Function<SqlConnection, Future<T>> work) {
      long bound = settings.statementTimeout().toMillis();
      Promise<T> settled = Promise.promise();
      // The work's first statements go out behind BEGIN without waiting for its answer (the
      // connection is pipelined): a transaction costs one round trip less.
      Supplier<Future<T>> underway = () -> {
        Future<io.vertx.sqlclient.Transaction> begun = connection.begin();
        Future<T> worked = started(work, lent);
        begun.transform(began -> began.failed() ? beginFailed(began.cause(), worked)
            : worked.transform(done -> done.succeeded() ? commitUnlessAbandoned(began.result(), done.result(), bound)
                : rollBack(began.result(), done.cause())))
            .onComplete(answered -> {
              if (answered.succeeded()) {
                settled.tryComplete(answered.result());
              } else {
                settled.tryFail(answered.cause());
              }
            });
        return settled.future();
      };
      // Counted from BEGIN until the database answers COMMIT or ROLLBACK (or, the connection lost,
      // the deadline has passed too), not until the deadline. The connection goes back to the pool
      // only then, never while the work may still send.
      Future<T> done = (route.write() ? fence.write(routes, underway) : underway.get())
          .onComplete(finished -> connection.close());
      return withDeadline(done, bound, () -> {
        watchOverdue(settled);
        return state.compareAndSet(WORKING, ABANDONED)
            ? notAnswering(route, bound, ROLLED_BACK)
            : notAnswering(route, bound, " to COMMIT" + MAY_HAVE_COMMITTED);
      });
    }

    /**
     * The transaction is past its deadline and the database has not answered: it is watched until
     * it settles, and settled here once its connection is found closed (its host died, or the
     * killer ended the session). The SQL client leaves some futures of a lost connection
     * unanswered for good — a ROLLBACK sent after the loss, the statements behind a BEGIN that
     * failed with it (vertx-sql-client #1226 and #1364 are the same bug in its other drivers) —
     * and the fence would count the write in flight for good: this server would acknowledge no
     * later map version, so every failover's fence ran to its timeout and every shard move's
     * cut-over backed off until a restart. Asked of the connection itself, not told by its close
     * or exception handlers, which a connection lost before it was lent never calls. Not at the
     * close but past the deadline: a host that died runs nothing of it by then, and one that lives
     * has had what ran past the deadline killed ({@link QueryKiller}), except a COMMIT a full disk
     * holds in binlog mode, which the killer spares and only a failover or the operator ends. A
     * frozen host's connection stays open, and its writes stay counted, as they must.
     */
    private <T> void watchOverdue(Promise<T> settled) {
      if (settledIfLost(settled)) {
        return;
      }
      vertx.setPeriodic(OVERDUE_CHECK_MS, check -> {
        if (settled.future().isComplete() || settledIfLost(settled)) {
          vertx.cancelTimer(check);
        }
      });
    }

    private <T> boolean settledIfLost(Promise<T> settled) {
      if (!closed(connection)) {
        return false;
      }
      settled.tryFail(GraphException.unavailable(route.target() + " lost the transaction's connection"
          + (mayHaveWritten() ? MAY_HAVE_COMMITTED : ROLLED_BACK)));
      return true;
    }

    /**
     * BEGIN failed, and the statements sent behind it ran each committed on its own: when only
     * BEGIN failed (a kill that found it running), they may have been applied. So the work is let
     * finish before the connection goes back, no further statement is sent, and the answer says
     * the outcome is unknown.
     */
    private <T> Future<T> beginFailed(Throwable failure, Future<T> worked) {
      failedToBegin = true;
      lent.end();
      return worked.transform(settled -> Future.failedFuture(outcomeUnknown("BEGIN", failure)));
    }

    /** UNAVAILABLE: {@code statement} failed where the write may have committed all the same. */
    private GraphException outcomeUnknown(String statement, Throwable failure) {
      return GraphException.of(GraphException.Code.UNAVAILABLE,
          route.target() + " failed " + statement + " (" + SqlErrors.reason(failure) + ")" + MAY_HAVE_COMMITTED, failure);
    }

    private <T> Future<T> rollBack(io.vertx.sqlclient.Transaction transaction, Throwable failure) {
      lent.end();
      return transaction.rollback().transform(rolledBack -> Future.failedFuture(failure));
    }

    /**
     * Commits unless the deadline abandoned the transaction first. A COMMIT that fails — killed
     * while it waited for binary-log space, or its connection lost — may have committed all the
     * same, and the answer says so instead of naming a database error.
     */
    private <T> Future<T> commitUnlessAbandoned(io.vertx.sqlclient.Transaction transaction, T result, long bound) {
      lent.end();
      if (state.compareAndSet(WORKING, COMMITTING)) {
        long sent = commits.sent(route.host());
        return transaction.commit().onComplete(answered -> commits.answered(route.host(), sent, answered.succeeded()))
            .transform(committed -> committed.succeeded() ? Future.succeededFuture(result)
                : Future.failedFuture(outcomeUnknown("COMMIT", committed.cause())));
      }
      return transaction.rollback().transform(rolledBack -> Future.failedFuture(
          notAnswering(route, bound, ROLLED_BACK)));
    }
  }
}
