package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.sqlclient.SqlConnection;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A transaction chosen as a deadlock's victim is rolled back by MariaDB at once, before the
 * statements its work pipelined behind the deadlocked one have run (a store's work sends a row, its
 * count, its log row and its outbox entry without waiting). Those statements must not run on their
 * own, each committed, as they would were the session back in autocommit: MariaDB keeps the session
 * inside a transaction after a deadlock's rollback (checked: {@code @@in_transaction} is 1 for the
 * statements behind it), so they roll back with the ROLLBACK that ends the attempt, and the retry
 * writes them once. Against a real host, two sessions locking two rows in opposite orders.
 */
class PipelinedDeadlockTest {
  private static final String ROWS = "quiver_pipelined_deadlock.r";
  private static final String MARKS = "quiver_pipelined_deadlock.m";
  /** Every run of either work, retries included. */
  private static final AtomicInteger attempts = new AtomicInteger();
  private static OneHost host;

  @BeforeAll
  static void start() throws Exception {
    host = new OneHost("quiver_pipelined_deadlock", 2,
        "CREATE TABLE IF NOT EXISTS " + ROWS + " (id INT PRIMARY KEY) ENGINE=InnoDB",
        "CREATE TABLE IF NOT EXISTS " + MARKS + " (id INT AUTO_INCREMENT PRIMARY KEY, tag VARCHAR(8) NOT NULL)"
            + " ENGINE=InnoDB",
        "INSERT IGNORE INTO " + ROWS + " VALUES (1), (2)");
  }

  @AfterAll
  static void stop() throws Exception {
    host.close();
  }

  @Test
  void theStatementsPipelinedBehindADeadlockedOne_rollBackWithTheVictim_andOnlyTheRetriesThatCommitLeaveRows()
      throws Exception {
    Promise<Void> firstHolds = Promise.promise();
    Promise<Void> secondHolds = Promise.promise();
    Future<Object> first = host.client.inTransaction(host.route, connection -> crossing(connection, 1, 2, firstHolds,
        secondHolds.future(), "first"));
    Future<Object> second = host.client.inTransaction(host.route, connection -> crossing(connection, 2, 1, secondHolds,
        firstHolds.future(), "second"));
    Future.all(first, second).otherwiseEmpty().await();
    assertThat(attempts.get()).as("works run: one of the two was the deadlock's victim, and ran again").isEqualTo(3);

    assertThat(first.succeeded()).as("the first transaction, retried if it was the victim").isTrue();
    assertThat(second.succeeded()).as("the second transaction, retried if it was the victim").isTrue();
    assertThat(host.column("SELECT tag FROM " + MARKS)).as("one mark per committed transaction: none from the victim's rolled-back attempt")
        .containsExactlyInAnyOrder("first", "second");
  }

  /**
   * Locks {@code mine}, says so, waits until the other holds its row, then sends the lock on
   * {@code theirs} and a mark behind it without waiting (pipelined), as a store's work sends a row
   * and its count. A retry finds both signals given and runs straight through.
   */
  private static Future<Object> crossing(SqlConnection connection, int mine, int theirs, Promise<Void> holding,
      Future<Void> otherHolds, String tag) {
    attempts.incrementAndGet();
    return connection.query("SELECT id FROM " + ROWS + " WHERE id = " + mine + " FOR UPDATE").execute()
        .compose(locked -> {
          holding.tryComplete();
          return otherHolds;
        })
        .compose(both -> {
          Future<?> lock = connection.query("SELECT id FROM " + ROWS + " WHERE id = " + theirs + " FOR UPDATE").execute();
          Future<?> mark = connection.query("INSERT INTO " + MARKS + " (tag) VALUES ('" + tag + "')").execute();
          return Future.all(lock, mark).map(done -> (Object) tag);
        });
  }
}
