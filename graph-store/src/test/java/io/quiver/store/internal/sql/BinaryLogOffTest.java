package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.vertx.core.Future;
import java.time.Clock;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/**
 * A host whose binary log is off ({@link CommitWatch#binaryLogOff}, as {@link HostHealth} reads it
 * from MariaDB; {@code FullDiskTest} shows MariaDB turning it off and the report) commits unlogged.
 * Where the change log and the inverses are read from the binary log, such a write would never get
 * its inverse copy or its change row, so the host refuses writes until the log is on again; reads
 * go on. Where they are written by the writes, the host takes writes as before. On a real host.
 */
class BinaryLogOffTest {
  private static final String TABLE = "quiver_binlog_off.t";
  private static OneHost host;

  @BeforeAll
  static void start() throws Exception {
    host = new OneHost("quiver_binlog_off", 2, "CREATE TABLE IF NOT EXISTS " + TABLE + " (id INT PRIMARY KEY) ENGINE=InnoDB");
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
  void whenTheLogIsReadFromTheBinaryLog_aHostWhoseBinaryLogIsOff_refusesWritesUnsent_answersReads_andTakesWritesOnceItIsOn()
      throws Exception {
    CommitWatch commits = new CommitWatch(Clock.systemUTC(), true);
    ShardClient client = host.client(commits);
    commits.binaryLogOff("h2", "its binary log is off: MariaDB turned it off after a write to it failed");

    Future<?> inTransaction = client.inTransaction(host.route(4), sql -> sql.query("INSERT INTO " + TABLE + " VALUES (1)").execute());
    Future<?> alone = client.write(host.route(4), sql -> sql.query("INSERT INTO " + TABLE + " VALUES (2)").execute());
    for (Future<?> refused : java.util.List.of(inTransaction, alone)) {
      refused.otherwiseEmpty().await();
      assertThat(refused.cause()).isInstanceOf(GraphException.class)
          .hasMessage("host h2 refuses writes: its binary log is off: MariaDB turned it off after a write to it failed;"
              + " the change log and the inverses are read from it (changes.source: binlog), so nothing was written");
      assertThat(((GraphException) refused.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
    }
    assertThat(rows()).as("rows written while refused").isZero();
    assertThat(client.read(host.route, sql -> sql.query("SELECT COUNT(*) FROM " + TABLE).execute()).await()
        .iterator().next().getLong(0)).as("a read (its route taken for reading) is answered").isZero();

    commits.binaryLogOff("h2", null);
    client.inTransaction(host.route(4), sql -> sql.query("INSERT INTO " + TABLE + " VALUES (1)").execute()).await();
    assertThat(rows()).as("rows written once the binary log is on again").isEqualTo(1);
  }

  @Test
  void withTheLogWrittenByTheWrites_aHostWhoseBinaryLogIsOff_takesWrites() throws Exception {
    CommitWatch commits = new CommitWatch(Clock.systemUTC(), false);
    commits.binaryLogOff("h2", "its binary log is off: MariaDB turned it off after a write to it failed");

    host.client(commits).inTransaction(host.route(4), sql -> sql.query("INSERT INTO " + TABLE + " VALUES (1)").execute())
        .await();
    assertThat(rows()).isEqualTo(1);
  }

  private static long rows() throws Exception {
    return Long.parseLong(host.column("SELECT COUNT(*) FROM " + TABLE).get(0));
  }
}
