package io.quiver.fleet.internal.replica;

import io.quiver.core.GraphException;
import io.quiver.fleet.ReplicaAcks;
import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.fleet.internal.TailerWait;
import io.quiver.fleet.internal.move.Replication;
import io.quiver.fleet.internal.move.SnapshotCopy;
import io.quiver.fleet.internal.move.StepProgress;
import io.quiver.store.Repairs;
import io.quiver.store.ShardLayout;
import io.quiver.store.shard.Host;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A host's replicas: each a MariaDB server that holds everything its primary holds and confirms
 * every transaction before the primary acknowledges it, so a failover promotes a copy that lost
 * nothing acknowledged (Pinterest's MySQL pairs, Vitess' semi-synchronous reparenting).
 *
 * <h2>Adding one</h2>
 * <ol>
 *   <li><b>Seed.</b> A server that never replicated gets every database of the primary from one
 *       consistent snapshot ({@link SnapshotCopy}, the same copy a shard move makes), written
 *       without its own binary log; the snapshot's GTID position is where replication starts, so
 *       nothing is missed and nothing applied twice. A server that has replicated before (its
 *       {@code gtid_slave_pos} is set: a replica restarted, or a dev stack's replica whose primary
 *       came back on another port) is not seeded again: it is pointed at the primary and resumes
 *       from its own position.
 *   <li><b>Replicate.</b> The default channel from the primary by GTID ({@link Replication#REPLICA}),
 *       every database, the replica {@code read_only} and confirming as a semi-synchronous replica.
 *   <li><b>Acknowledge.</b> The primary waits for a replica's confirmation after each transaction
 *       reaches its binary log ({@code AFTER_SYNC}) for as long as {@link ReplicaAcks} says.
 *   <li><b>Catch up.</b> The call answers once the replica has applied everything the primary had
 *       logged when it started, and the primary counts it among its semi-synchronous replicas.
 * </ol>
 * Removing one stops and forgets its channel; a primary left with none stops waiting.
 *
 * <h2>With the change log written from the binary log</h2>
 * A replica must log what it applies ({@code log_slave_updates}), or it is refused: promoted, its
 * binary log is where the host's tailer resumes, from the tail position its old primary's tailer
 * kept, and it must hold every transaction after that under the same GTID. The last step waits for
 * the primary's tailer to pass what the primary committed ({@link Repairs#caughtUp}), so the
 * position the replica holds is past its seeding point: what came before it is in no binary log
 * of the replica's.
 *
 * <p>The settings are MariaDB's global variables, set here over the servers' account (which needs
 * {@code SUPER} or the replication admin privileges, as a shard move does). They do not survive a
 * restart of the server: configure them in its {@code my.cnf} too (docs/operations.md, "Replicas").
 * Blocking JDBC, on admin threads.
 */
public final class Replicas {
  private static final Logger log = LoggerFactory.getLogger(Replicas.class);
  /** Databases every server has of its own, never copied to a replica. */
  private static final List<String> SYSTEM = List.of("mysql", "information_schema", "performance_schema", "sys");
  /** How long an added replica may take to catch up with its primary before the call gives up. */
  static final Duration CATCH_UP = Duration.ofMinutes(5);
  /** How long a replica's STOP SLAVE waits for its old primary to end its dump thread, in seconds. */
  static final int KILL_CONN_TIMEOUT_S = 1;

  /** How long an added replica waits for its primary's tailer, when the log is written from the binary log. */
  static final Duration TAILED = Duration.ofSeconds(15);

  private final ShardProvisioner hosts;
  private final Replication replication;
  private final SnapshotCopy copy;
  /** The backend's wait for a host's tailer, asked when {@link #tailed}. */
  private final Repairs changes;
  /** Whether the change log is written from the binary log ({@code changes.source: binlog}). */
  private final boolean tailed;

  public Replicas(ShardProvisioner hosts, String user, String password, Repairs changes, boolean tailed) {
    this.hosts = hosts;
    this.replication = new Replication(hosts, user, password, Replication.REPLICA);
    this.copy = new SnapshotCopy(hosts);
    this.changes = changes;
    this.tailed = tailed;
  }

  /** A replica's address as a host to connect to (named after its primary). */
  static Host replicaOf(Host primary, String address) {
    return new Host(primary.name() + "-replica", address, List.of());
  }

  /**
   * Makes {@code address} a replica of {@code primary}: seeded (or resumed), replicating,
   * confirming, caught up. Idempotent: adding a replica that already replicates the primary
   * points it again and waits for it to catch up.
   */
  public void add(Host primary, String address, ReplicaAcks acks, Consumer<String> progress)
      throws SQLException, InterruptedException {
    Host replica = replicaOf(primary, address);
    if (address.equals(primary.primary())) {
      throw GraphException.invalid("host " + primary.name() + " cannot replicate from itself (" + address + ")");
    }
    boolean seeded;
    try (Connection connection = hosts.connect(replica)) {
      if (tailed) {
        requireLogging(connection, address);
      }
      execute(connection, "SET GLOBAL read_only = ON");
      // A confirming replica's STOP SLAVE first reaches out to its old primary to end its dump
      // thread, waiting up to rpl_semi_sync_slave_kill_conn_timeout (5 s by default) for one that is
      // frozen — as a failover's is: a second at most.
      execute(connection, "SET GLOBAL rpl_semi_sync_slave_kill_conn_timeout = " + KILL_CONN_TIMEOUT_S);
      execute(connection, "SET GLOBAL rpl_semi_sync_slave_enabled = OFF");
      String position = single(connection, "SELECT @@GLOBAL.gtid_slave_pos");
      seeded = position.isEmpty();
      if (seeded) {
        seed(primary, replica, connection, progress);
      } else {
        progress.accept(address + " has replicated before (up to " + position + "): resuming it from there");
        replication.pointAt(connection, primary);
        execute(connection, "SET GLOBAL rpl_semi_sync_slave_enabled = ON");
        replication.begin(connection);
      }
    }
    configureAcks(primary, true, acks);
    Duration took = replication.catchUp(primary, replica, CATCH_UP);
    awaitConfirming(primary, address);
    if (tailed && seeded) {
      TailerWait.caughtUp(changes, primary.name(), TAILED);
    }
    progress.accept(address + " replicates " + primary.name() + " and confirms its writes (caught up in "
        + took.toMillis() + " ms)");
  }

  /**
   * With the change log written from the binary log, refuses a server at {@code address} that
   * does not log what it replicates: {@code host}'s replica, or its primary about to become one (a
   * switchover's). Nothing to check in the other mode.
   */
  public void requireLogging(Host host, String address) throws SQLException {
    if (tailed) {
      try (Connection connection = hosts.connect(replicaOf(host, address))) {
        requireLogging(connection, address);
      }
    }
  }

  private void requireLogging(Connection connection, String address) throws SQLException {
    if (!"1".equals(single(connection, "SELECT @@GLOBAL.log_bin AND @@GLOBAL.log_slave_updates"))) {
      throw GraphException.invalid(address + " does not log what it replicates (log_bin and log_slave_updates"
          + " must be ON): with the change log written from the binary log (changes.source: binlog), a promoted"
          + " replica's tailer resumes from its binary log; start it with --log-bin --log-slave-updates");
    }
  }

  /**
   * Copies every database of the primary to the replica from one snapshot and starts replication
   * at the snapshot's position. A server that holds tables in any of those databases but never
   * replicated is refused: it is someone's, not an empty server to seed.
   */
  private void seed(Host primary, Host replica, Connection connection, Consumer<String> progress) throws SQLException {
    List<String> databases;
    try (Connection source = hosts.connect(primary)) {
      databases = databases(source);
    }
    for (String database : databases) {
      if (!tables(connection, database).isEmpty()) {
        throw GraphException.invalid(replica.primary() + " holds tables in " + database + " but has never replicated;"
            + " a replica is seeded on an empty server");
      }
    }
    try (Statement statement = connection.createStatement()) {
      statement.execute("SET SESSION sql_log_bin = 0");
      for (String database : databases) {
        statement.execute("CREATE DATABASE IF NOT EXISTS `" + database + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
      }
    }
    progress.accept("seeding " + replica.primary() + " from a snapshot of " + primary.name() + ": "
        + databases.size() + " databases");
    String position = copy.copy(primary, replica, databases, StepProgress.IGNORED, () -> false);
    execute(connection, "SET GLOBAL rpl_semi_sync_slave_enabled = ON");
    replication.start(connection, primary, List.of(), position);
    log.info("replica {} of {} seeded at GTID position '{}'", replica.primary(), primary.name(), position);
  }

  /**
   * Stops {@code address} replicating {@code primary} and forgets its channel; with
   * {@code lastOne}, the primary stops waiting for confirmations. A replica that cannot be reached
   * is only left out of the primary's waiting.
   */
  public void remove(Host primary, String address, boolean lastOne, ReplicaAcks acks) throws SQLException {
    if (lastOne) {
      configureAcks(primary, false, acks);
    }
    try {
      replication.remove(replicaOf(primary, address));
    } catch (GraphException unreachable) {
      log.warn("replica {} of {} could not be reached to stop its replication: {}", address, primary.name(),
          unreachable.getMessage());
    }
  }

  /** Makes {@code primary} wait for a replica's confirmation of each write, or not. */
  public void configureAcks(Host primary, boolean replicated, ReplicaAcks acks) throws SQLException {
    try (Connection connection = hosts.connect(primary)) {
      if (replicated) {
        execute(connection, "SET GLOBAL rpl_semi_sync_master_wait_point = 'AFTER_SYNC'");
        try (PreparedStatement timeout = connection.prepareStatement("SET GLOBAL rpl_semi_sync_master_timeout = ?")) {
          timeout.setLong(1, acks.primaryTimeoutMs());
          timeout.execute();
        }
        execute(connection, "SET GLOBAL rpl_semi_sync_master_enabled = ON");
      } else {
        execute(connection, "SET GLOBAL rpl_semi_sync_master_enabled = OFF");
      }
    }
  }

  /** The state of {@code address}'s replication from its primary; null when it has none. */
  public Replication.Status status(Host primary, String address) throws SQLException {
    return replication.status(replicaOf(primary, address));
  }

  /**
   * How much of its primary's log the replica at {@code address} has received
   * ({@code Gtid_IO_Pos}, or what it applied when it received nothing since a restart): a failover
   * promotes the replica that has the most. Null when it cannot be reached within {@code timeout}.
   */
  public String received(Host primary, String address, Duration timeout) {
    try (Connection connection = hosts.connect(replicaOf(primary, address), timeout, timeout)) {
      Replication.Status status = replication.status(connection);
      String applied = single(connection, "SELECT @@GLOBAL.gtid_slave_pos");
      return status == null || status.received().isEmpty() ? applied : status.received();
    } catch (SQLException | GraphException unreachable) {
      log.warn("replica {} of {} cannot be reached to read its position: {}", address, primary.name(),
          unreachable.getMessage());
      return null;
    }
  }

  /**
   * Makes the replica at {@code address} a primary: stops reading from the old one, applies
   * everything it received ({@code MASTER_GTID_WAIT} on its received position, within
   * {@code timeout}), forgets its channel, stops confirming and accepts writes. Answers its GTID
   * position once promoted.
   */
  public String promote(Host primary, String address, Duration timeout) throws SQLException {
    Host replica = replicaOf(primary, address);
    try (Connection connection = hosts.connect(replica, Duration.ofSeconds(2), null)) {
      Replication.Status status = replication.status(connection);
      // As in add: a confirming replica's STOP SLAVE would first wait for its old primary to answer.
      execute(connection, "SET GLOBAL rpl_semi_sync_slave_kill_conn_timeout = " + KILL_CONN_TIMEOUT_S);
      execute(connection, "SET GLOBAL rpl_semi_sync_slave_enabled = OFF");
      if (status != null) {
        execute(connection, "STOP SLAVE IO_THREAD");
        String received = replication.status(connection).received();
        if (!received.isEmpty()) {
          try (PreparedStatement wait = connection.prepareStatement("SELECT MASTER_GTID_WAIT(?, ?)")) {
            wait.setString(1, received);
            wait.setDouble(2, timeout.toMillis() / 1000.0);
            try (ResultSet reached = wait.executeQuery()) {
              if (!reached.next() || reached.getInt(1) != 0) {
                throw GraphException.unavailable("replica " + address + " did not apply what it received ("
                    + received + ") within " + timeout.toMillis() + " ms");
              }
            }
          }
        }
      }
      replication.remove(replica);
      execute(connection, "SET GLOBAL read_only = OFF");
      return single(connection, "SELECT @@GLOBAL.gtid_current_pos");
    }
  }

  /**
   * Runs {@code statements} on the replica at {@code address} of {@code primary}, just promoted and
   * not yet taking writes: a failover's own preparations of the new primary.
   */
  public void prepare(Host primary, String address, List<ShardLayout.Statement> statements) throws SQLException {
    try (Connection connection = hosts.connect(replicaOf(primary, address), Duration.ofSeconds(2),
        Duration.ofSeconds(10))) {
      ShardProvisioner.run(connection, statements);
    }
  }

  /**
   * Waits until the replica at {@code address} has applied everything its (fenced, read-only)
   * primary has logged: a switchover's promotion then loses nothing.
   */
  public void catchUp(Host primary, String address, Duration timeout) throws SQLException {
    replication.catchUp(primary, replicaOf(primary, address), timeout);
  }

  /**
   * Makes the old primary at {@code address} — fenced and caught up with by the new one — a replica
   * of {@code newPrimary}: it resumes from its own last position (every transaction it logged is on
   * the new primary already), read-only and confirming.
   */
  public void demote(Host newPrimary, String address, ReplicaAcks acks) throws SQLException, InterruptedException {
    try (Connection connection = hosts.connect(replicaOf(newPrimary, address))) {
      execute(connection, "SET GLOBAL gtid_slave_pos = @@GLOBAL.gtid_binlog_pos");
    }
    add(newPrimary, address, acks, line -> log.info("{}: {}", newPrimary.name(), line));
  }

  /** How long a deposed primary that answered is given for its fencing statements ({@link #fence}). */
  static final Duration FENCE_STATEMENTS = Duration.ofSeconds(2);

  /** Undoes {@link #fence} on a primary a switchover could not replace: it takes writes again. */
  public void unfence(Host primary) {
    try (Connection connection = hosts.connect(primary, Duration.ofSeconds(2), Duration.ofSeconds(2))) {
      execute(connection, "SET GLOBAL read_only = OFF");
      if (primary.replicas().size() > 0) {
        execute(connection, "SET GLOBAL rpl_semi_sync_master_enabled = ON");
      }
    } catch (SQLException | GraphException unreachable) {
      log.error("host {}: its primary {} could not be made writable again after a failed switchover: {}",
          primary.name(), primary.primary(), unreachable.getMessage());
    }
  }

  /**
   * The transactions {@code host}'s primary holds, as MariaDB keeps them: the last sequence number of
   * each domain and server it logged ({@code @@gtid_binlog_state}) and of each domain it applied as
   * a replica ({@code @@gtid_slave_pos}: a replica seeded from a snapshot logged none of what it was
   * seeded with, and one promoted may have logged nothing since).
   */
  public String logged(Host host) throws SQLException {
    try (Connection connection = hosts.connect(host, Duration.ofSeconds(2), null)) {
      return single(connection, "SELECT CONCAT_WS(',', NULLIF(@@GLOBAL.gtid_binlog_state, ''),"
          + " NULLIF(@@GLOBAL.gtid_slave_pos, ''))");
    }
  }

  /**
   * Makes a deposed primary refuse writes ({@code read_only}), if it answers within {@code timeout}:
   * one that was frozen, not dead, must take no write when it thaws. Answers whether it did.
   *
   * <p>Only the connect is bounded by {@code timeout}, which keeps a caller trying a host still
   * frozen brief. Once it has answered, its fencing statements get {@link #FENCE_STATEMENTS}: a
   * thawed host is catching up on what it held, and {@code read_only} waits for the commits and
   * table locks in progress, longer than a connect takes on a busy machine. Given the connect's
   * bound instead, that wait was cut off attempt after attempt (a thawed primary fenced 15 s
   * after its failover, on a loaded machine).
   */
  public boolean fence(Host deposed, Duration timeout) {
    try (Connection connection = hosts.connect(deposed, timeout, timeout)) {
      connection.setNetworkTimeout(Runnable::run, (int) FENCE_STATEMENTS.toMillis());
      // Waits for a confirmation end first: read_only waits for the commits in progress, and a
      // deposed primary's would wait for ever for a replica it no longer has. They commit there,
      // alone — writes whose callers were answered "may or may not", on a primary no one reads.
      execute(connection, "SET GLOBAL rpl_semi_sync_master_enabled = OFF");
      execute(connection, "SET GLOBAL read_only = ON");
      log.info("the deposed primary {} of {} is read-only", deposed.primary(), deposed.name());
      return true;
    } catch (SQLException | GraphException unreachable) {
      return false;
    }
  }

  /**
   * Waits until the primary counts a semi-synchronous replica (the replica's I/O thread connects
   * after {@code START SLAVE}); UNAVAILABLE naming the primary if none does within seconds.
   */
  private void awaitConfirming(Host primary, String address) throws SQLException {
    long deadline = System.nanoTime() + Duration.ofSeconds(10).toNanos();
    try (Connection connection = hosts.connect(primary);
        Statement statement = connection.createStatement()) {
      while (true) {
        try (ResultSet rows = statement.executeQuery("SHOW GLOBAL STATUS LIKE 'Rpl_semi_sync_master_clients'")) {
          if (rows.next() && rows.getLong(2) > 0) {
            return;
          }
        }
        if (System.nanoTime() > deadline) {
          throw GraphException.unavailable("replica " + address + " replicates " + primary.name()
              + " but does not confirm its writes (no semi-synchronous replica connected)");
        }
        sleep(Duration.ofMillis(20));
      }
    }
  }

  private static List<String> tables(Connection connection, String database) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement statement = connection.prepareStatement(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = ?")) {
      statement.setString(1, database);
      try (ResultSet rows = statement.executeQuery()) {
        while (rows.next()) {
          names.add(rows.getString(1));
        }
      }
    }
    return names;
  }

  private static String single(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1) == null ? "" : rows.getString(1);
    }
  }

  /** Every database of a server but its own system ones. */
  private static List<String> databases(Connection connection) throws SQLException {
    List<String> names = new ArrayList<>();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT schema_name FROM information_schema.schemata"
            + " ORDER BY schema_name")) {
      while (rows.next()) {
        String name = rows.getString(1);
        if (!SYSTEM.contains(name)) {
          names.add(ShardLayout.identifier(name));
        }
      }
    }
    return names;
  }

  private static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw GraphException.unavailable("adding the replica was stopped: its server is shutting down");
    }
  }
}
