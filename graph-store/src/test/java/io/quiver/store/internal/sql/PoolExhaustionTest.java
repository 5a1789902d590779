package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import io.quiver.core.GraphException;
import io.quiver.store.PoolSettings;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.slf4j.LoggerFactory;

/**
 * The pool under exhaustion, again and again: waiters time out while connections are handed back
 * around the very moment their timers fire (the race behind vertx-sql-client#1567, "Promise
 * already completed", fixed in the 5.0 line by #1620/#1621). Afterwards every connection is back,
 * and no completion was reported twice.
 */
class PoolExhaustionTest {
  private static final int SIZE = 2;
  private static final Duration ACQUIRE = Duration.ofMillis(100);

  @Test
  void aPoolExhaustedAndTimedOutRepeatedly_getsEveryConnectionBack_andCompletesNoWaiterTwice() {
    Logger root = (Logger) LoggerFactory.getLogger(org.slf4j.Logger.ROOT_LOGGER_NAME);
    ListAppender<ILoggingEvent> errors = new ListAppender<>();
    errors.start();
    root.addAppender(errors);
    Vertx vertx = Vertx.vertx();
    List<Throwable> unhandled = new CopyOnWriteArrayList<>();
    vertx.exceptionHandler(unhandled::add);
    TestBackend backend = TestBackend.get();
    PoolSettings tiny = new PoolSettings(backend.hosts().user(), backend.hosts().password(), SIZE, 256,
        Duration.ofMillis(500), ACQUIRE, 16, 1);
    HostPools pools = new HostPools(vertx, tiny);
    try {
      Pool pool = pools.apply(backend.shardMap()).get("h1");
      int timedOut = 0;
      for (int round = 0; round < 20; round++) {
        List<Future<?>> all = new ArrayList<>();
        // Holders release their connections from 50 to 150 ms in, around the waiters' 100 ms timeouts.
        for (int i = 0; i < SIZE; i++) {
          double hold = (50 + ThreadLocalRandom.current().nextInt(100)) / 1000.0;
          all.add(pool.query("SELECT SLEEP(" + hold + ")").execute());
        }
        List<Future<?>> waiters = new ArrayList<>();
        for (int i = 0; i < 30; i++) {
          waiters.add(pool.getConnection()
              .compose(connection -> connection.query("SELECT 1").execute().eventually(connection::close)));
        }
        all.addAll(waiters);
        Future.join(all).otherwiseEmpty().await();
        timedOut += (int) waiters.stream().filter(Future::failed).count();
      }
      assertThat(timedOut).as("waiters that timed out: the pool was exhausted").isPositive();

      List<SqlConnection> held = new ArrayList<>();
      for (int i = 0; i < SIZE; i++) {
        held.add(pool.getConnection().await());
      }
      for (SqlConnection connection : held) {
        assertThat(connection.query("SELECT 1").execute().await().size()).isEqualTo(1);
        connection.close().await();
      }
      assertThat(pool.size()).isLessThanOrEqualTo(SIZE);
    } finally {
      pools.close().await();
      vertx.close().await();
      root.detachAppender(errors);
    }
    assertThat(unhandled).as("failures no handler took").isEmpty();
    assertThat(errors.list).filteredOn(event -> event.getLevel().isGreaterOrEqual(Level.ERROR))
        .extracting(ILoggingEvent::getFormattedMessage).isEmpty();
  }

  @Test
  void aTransactionThatGetsNoConnection_isAnsweredUnavailable_sayingNothingWasWritten() throws Exception {
    // Long enough for a first connect to a host just started, short for a test.
    try (OneHost one = oneConnection(Duration.ofSeconds(2))) {
      SqlConnection held = one.pool.getConnection().await();
      Future<Object> refused = lentNothing(one, one.pool);
      refused.otherwiseEmpty().await();
      held.close().await();

      assertUnavailable(one, refused).contains("nothing was written");
    }
  }

  /**
   * The pool losing its answer, as vertx-sql-client 5.0.10 can for a waiter served as its timer
   * fires: the real pool is asked, and its lease handed back unanswered. The transaction is answered
   * all the same, once the acquire timeout and its grace have passed.
   */
  @Test
  void aConnectionThePoolNeverAnswers_isAnsweredUnavailable_afterTheAcquireTimeoutAndItsGrace() throws Exception {
    Duration acquire = Duration.ofSeconds(1);
    try (OneHost one = oneConnection(acquire)) {
      Pool losing = answering(one.pool, lent -> {
        lent.onSuccess(SqlConnection::close);
        return Promise.<SqlConnection>promise().future();
      });
      long started = System.nanoTime();
      Future<Object> answered = lentNothing(one, losing);
      answered.otherwiseEmpty().await(10, TimeUnit.SECONDS);
      long tookMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - started);

      assertUnavailable(one, answered).contains("lent no connection").contains("nothing was written");
      long bound = acquire.toMillis() + ShardClient.LEND_GRACE_MS;
      assertThat(tookMs).as("answered at the acquire timeout and its grace").isBetween(bound - 50, bound + 2000);
      // The pool's one connection is back: otherwise this borrow times out, and throws.
      one.pool.getConnection().compose(SqlConnection::close).await(5, TimeUnit.SECONDS);
    }
  }

  /** A connection the pool lends after the deadline answered goes straight back: the next borrower gets it. */
  @Test
  void aConnectionLentAfterTheDeadline_goesBackToThePool() throws Exception {
    Duration acquire = Duration.ofSeconds(1);
    try (OneHost one = oneConnection(acquire)) {
      long lateMs = acquire.toMillis() + ShardClient.LEND_GRACE_MS + 300;
      Promise<SqlConnection> lentLate = Promise.promise();
      Pool late = answering(one.pool, lent -> {
        lent.compose(connection -> one.vertx.timer(lateMs).map(connection)).onComplete(lentLate);
        return lentLate.future();
      });
      Future<Object> answered = lentNothing(one, late);
      answered.otherwiseEmpty().await(10, TimeUnit.SECONDS);
      assertUnavailable(one, answered).contains("lent no connection");
      lentLate.future().await(10, TimeUnit.SECONDS);

      Future<Object> next = one.client.inTransaction(one.route(SHARD),
          connection -> connection.query("SELECT 1").execute().map(rows -> (Object) rows.size()));
      assertThat(next.await(10, TimeUnit.SECONDS)).as("the late connection came back for the next borrower")
          .isEqualTo(1);
    }
  }

  /** The test host's shard the transactions here write. */
  private static final int SHARD = 4;

  /**
   * One connection to the test backend's second host, waited for at most {@code acquire} (a second
   * at least: a first connect on a loaded machine can take a few hundred ms).
   */
  private static OneHost oneConnection(Duration acquire) throws Exception {
    return new OneHost("pool_exhaustion", 1, acquire);
  }

  /** A transaction on {@code lender} (the host's pool, or one standing for it) whose work must never run. */
  private static Future<Object> lentNothing(OneHost one, Pool lender) {
    ShardRoute route = one.route(SHARD);
    return one.client.inTransaction(new ShardRoute(route.shard(), route.host(), lender, true),
        connection -> Future.failedFuture(new AssertionError("no connection should have been lent")));
  }

  /** The message of {@code answered}'s failure, which must be an UNAVAILABLE naming the host. */
  private static org.assertj.core.api.AbstractStringAssert<?> assertUnavailable(OneHost one, Future<?> answered) {
    assertThat(answered.cause()).isInstanceOf(GraphException.class);
    assertThat(((GraphException) answered.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
    return assertThat(answered.cause().getMessage()).contains(one.route(SHARD).target());
  }

  /** {@code pool}, except that what its {@code getConnection} answers is what {@code answer} makes of it. */
  private static Pool answering(Pool pool, Function<Future<SqlConnection>, Future<SqlConnection>> answer) {
    return (Pool) Proxy.newProxyInstance(Pool.class.getClassLoader(), new Class<?>[] {Pool.class},
        (proxy, method, args) -> {
          if (method.getName().equals("getConnection") && method.getParameterCount() == 0) {
            return answer.apply(pool.getConnection());
          }
          try {
            return method.invoke(pool, args);
          } catch (InvocationTargetException e) {
            throw e.getCause();
          }
        });
  }
}
