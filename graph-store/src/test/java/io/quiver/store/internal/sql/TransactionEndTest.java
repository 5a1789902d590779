package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * What a transaction's end means for the statements of its work ({@link ShardClient},
 * {@link LentConnection}): nothing the work sends after the transaction ended runs — neither on its
 * own after the ROLLBACK nor inside the next borrower's transaction — and a COMMIT that fails says
 * the write may or may not have been applied, and is never run again; a failure that wrote nothing
 * is, when the work asks ({@link ShardClient.Retry#UNWRITTEN}). On one session (a pool of one),
 * against a real host.
 */
class TransactionEndTest {
  private static final String TABLE = "quiver_transaction_end.t";
  private static OneHost host;
  private static ShardClient client;
  private static ShardRoute route;

  @BeforeAll
  static void start() throws Exception {
    host = new OneHost("quiver_transaction_end", 1,
        "CREATE TABLE IF NOT EXISTS " + TABLE + " (id INT PRIMARY KEY) ENGINE=InnoDB");
    client = host.client;
    route = host.route;
  }

  @AfterAll
  static void stop() throws Exception {
    host.close();
  }

  @BeforeEach
  void empty() throws Exception {
    host.execute("DELETE FROM " + TABLE);
  }

  @Test
  void aStatementAWorkSendsAfterItsTransactionFailed_isRefusedUnsent_soNothingCommitsOutsideTheTransaction()
      throws Exception {
    AtomicReference<Future<?>> late = new AtomicReference<>();
    Future<Object> failed = client.inTransaction(route, connection -> {
      // Two branches, as a work's lock and existence check are: the first fails at once, and the
      // transaction rolls back while the second still waits to send its INSERT.
      Future<?> refused = connection.query("SELECT * FROM quiver_transaction_end.no_such_table").execute();
      late.set(connection.query("SELECT SLEEP(0.2)").execute()
          .compose(slept -> connection.query("INSERT INTO " + TABLE + " VALUES (1)").execute()));
      return Future.all(refused, late.get()).map(both -> (Object) both);
    });
    failed.otherwiseEmpty().await();
    assertThat(failed.failed()).isTrue();
    late.get().otherwiseEmpty().await();

    // The next borrower of the one session: a stray INSERT sent after the ROLLBACK would run in it.
    client.inTransaction(route, connection -> connection.query("SELECT 1").execute()).await();
    assertThat(rows()).as("rows written by a transaction that failed").isZero();
    assertThat(late.get().failed()).as("the late INSERT was refused").isTrue();
    assertThat(late.get().cause()).hasMessageContaining("after its transaction ended");
  }

  @Test
  void aCommitThatFails_isAnswered503_sayingTheWriteMayOrMayNotHaveBeenApplied() throws Exception {
    Future<Object> written = commitKilled(ShardClient.Retry.ABORTED, 2, new AtomicInteger());

    assertThat(written.cause()).isInstanceOf(GraphException.class)
        .hasMessageEndingWith("failed COMMIT (MySQL error 1317); the write may or may not have been applied");
    assertThat(((GraphException) written.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
  }

  @Test
  void aFailureThatWroteNothing_isRunAgainUnderRetryUnwritten_andAnsweredAtOnceOtherwise() throws Exception {
    AtomicInteger patient = new AtomicInteger();
    Object written = client.inTransaction(route, ShardClient.Retry.UNWRITTEN, connection -> patient.incrementAndGet() == 1
        ? Future.failedFuture(GraphException.unavailable("host h2 did not answer in time; nothing was written"))
        : connection.query("INSERT INTO " + TABLE + " VALUES (3)").execute().map(inserted -> (Object) "written"))
        .await();
    assertThat(written).isEqualTo("written");
    assertThat(patient.get()).as("attempts under Retry.UNWRITTEN").isEqualTo(2);
    assertThat(rows()).as("written once").isEqualTo(1);

    AtomicInteger impatient = new AtomicInteger();
    Future<Object> refused = client.inTransaction(route, connection -> {
      impatient.incrementAndGet();
      return Future.failedFuture(GraphException.unavailable("host h2 did not answer in time; nothing was written"));
    });
    refused.otherwiseEmpty().await();
    assertThat(refused.failed()).isTrue();
    assertThat(impatient.get()).as("attempts of a request's transaction").isEqualTo(1);
  }

  @Test
  void aCommitThatFails_isNeverRunAgain_evenUnderRetryUnwritten() throws Exception {
    AtomicInteger attempts = new AtomicInteger();
    Future<Object> written = commitKilled(ShardClient.Retry.UNWRITTEN, 4, attempts);

    assertThat(written.cause()).hasMessageEndingWith("the write may or may not have been applied");
    assertThat(((GraphException) written.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
    assertThat(attempts.get()).as("a transaction that may have committed is not sent again").isEqualTo(1);
  }

  /**
   * A transaction, retried as {@code retry} says, that inserts {@code value} and whose COMMIT is
   * killed while it waits: a global read lock holds every COMMIT that wrote ("Waiting for backup
   * lock"), as a full disk does. Counts its attempts in {@code attempts}; answers its outcome.
   */
  private static Future<Object> commitKilled(ShardClient.Retry retry, int value, AtomicInteger attempts)
      throws Exception {
    try (Connection locker = host.admin(); Statement lock = locker.createStatement(); Connection admin = host.admin();
        Statement sql = admin.createStatement()) {
      AtomicReference<Long> session = new AtomicReference<>();
      Promise<Void> locked = Promise.promise();
      Future<Object> written = client.inTransaction(route, retry, connection -> {
        attempts.incrementAndGet();
        return connection.query("SELECT CONNECTION_ID()").execute()
            .compose(rows -> {
              long id = rows.iterator().next().getLong(0);
              return connection.query("INSERT INTO " + TABLE + " VALUES (" + value + ")").execute()
                  .onSuccess(inserted -> session.set(id));
            })
            .compose(inserted -> locked.future().map(inserted));
      });
      Await.until("the INSERT", Duration.ofSeconds(10), () -> session.get() != null);
      lock.execute("FLUSH TABLES WITH READ LOCK");
      locked.complete();
      Await.until("the COMMIT waiting for the lock", Duration.ofSeconds(10), () -> committing(sql, session.get()));
      sql.execute("KILL QUERY " + session.get());
      written.otherwiseEmpty().await();
      lock.execute("UNLOCK TABLES");
      return written;
    }
  }

  private static boolean committing(Statement sql, Long session) throws Exception {
    if (session == null) {
      return false;
    }
    try (ResultSet rows = sql.executeQuery("SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE ID = " + session
        + " AND INFO = 'COMMIT'")) {
      rows.next();
      return rows.getLong(1) == 1;
    }
  }

  private static long rows() throws Exception {
    return Long.parseLong(host.column("SELECT COUNT(*) FROM " + TABLE).get(0));
  }
}
