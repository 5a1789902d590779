package io.quiver.fleet.internal.replica;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.embedded.EmbeddedMariaDb;
import io.quiver.fleet.ReplicaAcks;
import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.store.shard.Host;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInstance;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * A host's replica on real MariaDB servers of its own: seeded from a snapshot, replicating, and
 * confirming every write before its primary acknowledges it — and what a write does when no replica
 * confirms, in each {@link ReplicaAcks} mode. In order: the replica added first is used after.
 */
@TestInstance(TestInstance.Lifecycle.PER_CLASS)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class ReplicasTest {
  private static final ReplicaAcks REFUSE = ReplicaAcks.defaults();
  private EmbeddedMariaDb primaryServer;
  private EmbeddedMariaDb replicaServer;
  private Host primary;
  private Replicas replicas;
  /**
   * What MariaDB's consoles say while replicas are stopped, killed and removed on purpose here
   * ("Semi-sync master failed on net_flush()", "Slave I/O: error reconnecting"): expected, caught.
   */
  private ExpectedLog consoles;

  @BeforeAll
  void start() throws Exception {
    consoles = ExpectedLog.named("ch.vorburger.exec");
    primaryServer = EmbeddedMariaDb.start(null, 0);
    replicaServer = EmbeddedMariaDb.start(null, 0);
    primary = new Host("h1", primaryServer.address(), List.of());
    // The change log written by the writes: no tailer to wait for.
    replicas = new Replicas(new ShardProvisioner("root", ""), "root", "", null, false);
    execute(primaryServer, "CREATE DATABASE db00000");
    execute(primaryServer, "CREATE TABLE db00000.t (id BIGINT PRIMARY KEY, v VARCHAR(20))");
    execute(primaryServer, "INSERT INTO db00000.t VALUES (1, 'before'), (2, 'before')");
  }

  @AfterAll
  void stop() {
    if (replicaServer != null) {
      replicaServer.close();
    }
    if (primaryServer != null) {
      primaryServer.close();
    }
    if (consoles != null) {
      consoles.close();
    }
  }

  /**
   * With the change log written from the binary log, a server that does not log what it
   * replicates cannot be a replica: promoted, its binary log is where the host's tailer resumes.
   * Refused before it is touched (still writable, never seeded).
   */
  @Test
  @Order(0)
  void aServerNotLoggingWhatItReplicates_isRefusedAsAReplica_whileTheLogIsTailed_beforeItIsTouched()
      throws Exception {
    Replicas tailed = new Replicas(new ShardProvisioner("root", ""), "root", "", null, true);

    assertThatThrownBy(() -> tailed.add(primary, replicaServer.address(), REFUSE, line -> { }))
        .isInstanceOf(GraphException.class).hasMessageContaining("log_slave_updates")
        .hasMessageContaining("changes.source: binlog")
        .satisfies(refusal -> assertThat(((GraphException) refusal).code()).isEqualTo(GraphException.Code.INVALID_ARGUMENT));
    assertThat(single(replicaServer, "SELECT @@GLOBAL.read_only")).as("left writable").isEqualTo("0");
    assertThat(single(replicaServer, "SELECT @@GLOBAL.gtid_slave_pos")).as("never seeded").isEmpty();
  }

  @Test
  @Order(1)
  void aReplicaAdded_holdsWhatItsPrimaryHeld_andEveryLaterWrite_andConfirmsThem() throws Exception {
    replicas.add(primary, replicaServer.address(), REFUSE, line -> { });

    assertThat(count(replicaServer, "SELECT COUNT(*) FROM db00000.t")).as("the snapshot's rows").isEqualTo(2);
    execute(primaryServer, "INSERT INTO db00000.t VALUES (3, 'after')");
    Await.until("the later write on the replica", Duration.ofSeconds(10),
        () -> count(replicaServer, "SELECT COUNT(*) FROM db00000.t") == 3);
    assertThat(status(primaryServer, "Rpl_semi_sync_master_status")).isEqualTo("ON");
    assertThat(count(primaryServer, "SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_yes_tx'"))
        .as("the later write was confirmed by the replica").isPositive();
    assertThat(single(replicaServer, "SELECT @@GLOBAL.read_only")).isEqualTo("1");
  }

  @Test
  @Order(2)
  void aReplicaAddedAgain_isResumedFromItsOwnPosition_notSeededAgain() throws Exception {
    List<String> told = new java.util.ArrayList<>();
    replicas.add(primary, replicaServer.address(), REFUSE, told::add);

    assertThat(told).anyMatch(line -> line.contains("resuming it from there"));
    execute(primaryServer, "INSERT INTO db00000.t VALUES (4, 'resumed')");
    Await.until("the write after the resume on the replica", Duration.ofSeconds(10),
        () -> count(replicaServer, "SELECT COUNT(*) FROM db00000.t") == 4);
  }

  @Test
  @Order(3)
  void refusing_aCommitNoReplicaConfirms_waits_andIsNeverAcknowledgedByThePrimaryAlone() throws Exception {
    execute(replicaServer, "STOP SLAVE");
    CompletableFuture<Void> write = CompletableFuture.runAsync(() -> execute(primaryServer,
        "INSERT INTO db00000.t VALUES (5, 'waits')"));
    try {
      Thread.sleep(1_500);
      assertThat(write).as("a commit no replica confirmed is not acknowledged").isNotDone();
      assertThat(status(primaryServer, "Rpl_semi_sync_master_status")).as("the primary does not fall back")
          .isEqualTo("ON");
    } finally {
      execute(replicaServer, "START SLAVE");
    }
    write.get(10, TimeUnit.SECONDS);
    assertThat(count(replicaServer, "SELECT COUNT(*) FROM db00000.t WHERE id = 5")).isEqualTo(1);
  }

  @Test
  @Order(4)
  void refusing_aWaitingCommitKilled_isReleasedAsCommittedOnThePrimaryAlone_andReachesTheReplicaWhenItReturns()
      throws Exception {
    execute(replicaServer, "STOP SLAVE");
    CompletableFuture<Void> write = CompletableFuture.runAsync(() -> execute(primaryServer,
        "INSERT INTO db00000.t VALUES (6, 'killed')"));
    try {
      Await.until("the commit waiting for a confirmation", Duration.ofSeconds(10),
          () -> count(primaryServer, "SELECT COUNT(*) FROM information_schema.processlist"
              + " WHERE info LIKE 'INSERT INTO db00000.t VALUES (6%'") == 1);
      long waiting = count(primaryServer, "SELECT id FROM information_schema.processlist"
          + " WHERE info LIKE 'INSERT INTO db00000.t VALUES (6%'");
      execute(primaryServer, "KILL QUERY " + waiting);
      // MariaDB answers the killed COMMIT as committed although no replica has it. Quiver's query
      // killer only kills a statement past its deadline, whose caller was already answered 503
      // "may or may not have been applied": this OK never reaches anyone as an acknowledgement.
      write.get(10, TimeUnit.SECONDS);
      assertThat(count(primaryServer, "SELECT COUNT(*) FROM db00000.t WHERE id = 6")).isEqualTo(1);
      assertThat(count(replicaServer, "SELECT COUNT(*) FROM db00000.t WHERE id = 6")).as("on the primary alone")
          .isZero();
    } finally {
      execute(replicaServer, "START SLAVE");
    }
    Await.until("the killed write on the replica", Duration.ofSeconds(10),
        () -> count(replicaServer, "SELECT COUNT(*) FROM db00000.t WHERE id = 6") == 1);
  }

  @Test
  @Order(5)
  void asynchronous_aCommitNoReplicaConfirms_isAcknowledgedAfterTheTimeout_andTheFallBackShows() throws Exception {
    replicas.configureAcks(primary, true, new ReplicaAcks(ReplicaAcks.Mode.ASYNC, Duration.ofMillis(300)));
    execute(replicaServer, "STOP SLAVE");
    try {
      long started = System.nanoTime();
      execute(primaryServer, "INSERT INTO db00000.t VALUES (7, 'async')");
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofMillis(250));
      assertThat(status(primaryServer, "Rpl_semi_sync_master_status")).isEqualTo("OFF");
    } finally {
      execute(replicaServer, "START SLAVE");
    }
    Await.until("the primary waiting for confirmations again once the replica caught up", Duration.ofSeconds(10),
        () -> {
          execute(primaryServer, "INSERT INTO db00000.t VALUES (8, 'caught up') ON DUPLICATE KEY UPDATE v = v");
          return "ON".equals(status(primaryServer, "Rpl_semi_sync_master_status"));
        });
    replicas.configureAcks(primary, true, REFUSE);
  }

  @Test
  @Order(6)
  void theLastReplicaRemoved_leavesThePrimaryAcknowledgingAlone_andTheReplicaStopped() throws Exception {
    replicas.remove(primary, replicaServer.address(), true, REFUSE);

    assertThat(single(primaryServer, "SELECT @@GLOBAL.rpl_semi_sync_master_enabled")).isEqualTo("0");
    assertThat(replicas.status(primary, replicaServer.address())).isNull();
    execute(primaryServer, "INSERT INTO db00000.t VALUES (9, 'alone')");
    assertThat(count(primaryServer, "SELECT COUNT(*) FROM db00000.t WHERE id = 9")).isEqualTo(1);
  }

  /**
   * A deposed primary that answers its connect at once but whose {@code read_only} waits (here on a
   * table lock another session holds for longer than the connect's bound): fenced all the same,
   * its fencing statements given longer than its connect.
   */
  @Test
  @Order(7)
  void aDeposedPrimaryWhoseReadOnlyWaitsLongerThanItsConnect_isFencedAllTheSame() throws Exception {
    Duration reach = Duration.ofMillis(300);
    try (Connection holder = connect(primaryServer); Statement lock = holder.createStatement()) {
      lock.execute("LOCK TABLES db00000.t WRITE");
      Thread unlock = new Thread(() -> {
        try {
          Thread.sleep(reach.toMillis() * 3);
          lock.execute("UNLOCK TABLES");
        } catch (Exception e) {
          throw new IllegalStateException(e);
        }
      });
      unlock.start();
      try {
        assertThat(replicas.fence(primary, reach)).as("fenced, though read_only waited past the connect's bound")
            .isTrue();
      } finally {
        unlock.join();
      }
    }
    assertThat(single(primaryServer, "SELECT @@GLOBAL.read_only")).isEqualTo("1");
    execute(primaryServer, "SET GLOBAL read_only = OFF");
  }

  private static Connection connect(EmbeddedMariaDb server) throws SQLException {
    return DriverManager.getConnection("jdbc:mysql://" + server.address() + "/", "root", "");
  }

  private static void execute(EmbeddedMariaDb server, String sql) {
    try (Connection connection = connect(server); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    } catch (SQLException e) {
      throw new IllegalStateException(sql + ": " + e.getMessage(), e);
    }
  }

  private static String single(EmbeddedMariaDb server, String sql) throws SQLException {
    try (Connection connection = connect(server); Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(rows.getMetaData().getColumnCount());
    }
  }

  private static long count(EmbeddedMariaDb server, String sql) throws SQLException {
    return Long.parseLong(single(server, sql));
  }

  private static String status(EmbeddedMariaDb server, String variable) throws SQLException {
    return single(server, "SHOW GLOBAL STATUS LIKE '" + variable + "'");
  }
}
