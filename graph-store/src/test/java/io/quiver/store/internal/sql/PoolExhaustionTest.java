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
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
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
  void aTransactionThatGetsNoConnection_isAnsweredUnavailable_sayingNothingWasWritten() {
    Vertx vertx = Vertx.vertx();
    TestBackend backend = TestBackend.get();
    // Long enough for a first connect to a host just started, short for a test.
    Duration acquire = Duration.ofSeconds(2);
    PoolSettings one = new PoolSettings(backend.hosts().user(), backend.hosts().password(), 1, 256,
        Duration.ofMillis(500), acquire, 16, 1);
    HostPools pools = new HostPools(vertx, one);
    try {
      Pool pool = pools.apply(backend.shardMap()).get("h1");
      ShardClient client = new ShardClient(vertx, one, new MapWrites(backend::shardMap, version -> {}));
      SqlConnection held = pool.getConnection().await();
      Future<Object> refused = client.inTransaction(new ShardRoute(0, "h1", pool, true),
          connection -> Future.failedFuture(new AssertionError("no connection should have been lent")));
      refused.otherwiseEmpty().await();
      Throwable failure = refused.cause();
      held.close().await();

      assertThat(failure).isInstanceOf(GraphException.class);
      assertThat(((GraphException) failure).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
      assertThat(failure.getMessage()).contains("host h1").contains("nothing was written");
    } finally {
      pools.close().await();
      vertx.close().await();
    }
  }
}
