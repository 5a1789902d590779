package io.quiver.fleet.internal.move;

import io.quiver.core.GraphException;
import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.store.shard.Host;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.List;

/**
 * One stream of changes from one host to another: MariaDB's own replication, as one channel on the
 * target (multi-source replication) from the source's binary log, by GTID. A shard move's channel
 * ({@link #MOVE}) is filtered to the moving databases ({@code replicate_do_db} per channel); a
 * host's replica replicates everything on the default channel ({@link #REPLICA}). The copy is taken
 * at a snapshot whose GTID position {@link SnapshotCopy} reads; the channel starts exactly there.
 *
 * <p>Why the database's replication rather than a binlog client in Quiver: it applies row events
 * to tables that are exactly the source's, in order, transaction by transaction, and it keeps its
 * position on the target's disk, so a target that restarts resumes by itself — everything a
 * home-made applier would have to get right again. Its cost is an operational one: every host runs
 * with {@code log_bin}, {@code binlog_format=ROW} and a server id and GTID domain of its own (the
 * embedded hosts do), and the servers' account needs {@code REPLICATION SLAVE} on the source and
 * {@code SUPER} (or {@code REPLICATION SLAVE ADMIN}) on the target.
 *
 * <p>Every statement uses bind parameters; the channel name is a constant. Blocking JDBC, from
 * admin threads.
 */
public final class Replication {
  /** A shard move's channel, on the move's target. */
  public static final String MOVE = "quiver_move";
  /** A replica's channel from its primary: the default one. */
  public static final String REPLICA = "";
  /** How long {@link #catchUp} waits in one call before it says how far behind the target is. */
  private static final Duration WAIT_STEP = Duration.ofSeconds(5);

  private final ShardProvisioner hosts;
  private final String user;
  private final String password;
  /** The channel's name: one of the two constants, never a caller's text. */
  private final String channel;

  public Replication(ShardProvisioner hosts, String user, String password, String channel) {
    if (!MOVE.equals(channel) && !REPLICA.equals(channel)) {
      throw new IllegalArgumentException("replication channel '" + channel + "' is not one of Quiver's");
    }
    this.hosts = hosts;
    this.user = user;
    this.password = password == null ? "" : password;
    this.channel = channel;
  }

  /**
   * Starts the channel on {@code target} from {@code position} of {@code source}, for
   * {@code databases} only (every database when empty).
   */
  public void start(Host source, Host target, List<String> databases, String position) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      start(connection, source, databases, position);
    }
  }

  /** As {@link #start(Host, Host, List, String)}, over a connection to the target. */
  public void start(Connection connection, Host source, List<String> databases, String position) throws SQLException {
    remove(connection);
    update(connection, "SET GLOBAL gtid_slave_pos = ?", position);
    point(connection, source);
    if (!databases.isEmpty()) {
      update(connection, "SET GLOBAL " + channel + ".replicate_do_db = ?", String.join(",", databases));
    }
    begin(connection);
  }

  /**
   * Points the channel of {@code target} at {@code source}'s current address and starts it from
   * where the target stands ({@code gtid_slave_pos}): a replica whose primary came back on another
   * address, or one that already holds what it was seeded with.
   */
  public void repoint(Host source, Host target) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      pointAt(connection, source);
      begin(connection);
    }
  }

  /** Stops the channel, if it runs, and points it at {@code source}'s current address, not starting it. */
  public void pointAt(Connection target, Host source) throws SQLException {
    if (status(target, channel) != null) {
      execute(target, "STOP SLAVE '" + channel + "'");
    }
    point(target, source);
  }

  /** Starts the channel from where its target stands. */
  public void begin(Connection target) throws SQLException {
    execute(target, "START SLAVE '" + channel + "'");
  }

  private void point(Connection connection, Host source) throws SQLException {
    try (PreparedStatement change = connection.prepareStatement("CHANGE MASTER '" + channel + "' TO MASTER_HOST = ?,"
        + " MASTER_PORT = ?, MASTER_USER = ?, MASTER_PASSWORD = ?, MASTER_USE_GTID = slave_pos,"
        + " MASTER_CONNECT_RETRY = 1, MASTER_SSL_VERIFY_SERVER_CERT = 0")) {
      change.setString(1, source.primaryHost());
      change.setInt(2, source.primaryPort());
      change.setString(3, user);
      change.setString(4, password);
      change.execute();
    }
  }

  /**
   * Waits until the target has applied everything the source has logged up to now; answers how
   * long it took. UNAVAILABLE when the channel has failed (with the database's own error) or has
   * not caught up within {@code timeout}.
   */
  public Duration catchUp(Host source, Host target, Duration timeout) throws SQLException {
    try (Link link = link(source, target)) {
      return link.catchUp(timeout);
    }
  }

  /** Waits until the target has applied the source's log up to {@code position}. */
  private static Duration waitFor(Connection connection, Host target, String channel, String position,
      Duration timeout) throws SQLException {
    long started = System.nanoTime();
    long deadline = started + timeout.toNanos();
    try (PreparedStatement wait = connection.prepareStatement("SELECT MASTER_GTID_WAIT(?, ?)")) {
      while (true) {
        requireHealthy(connection, channel);
        long left = Math.max(1, Math.min(WAIT_STEP.toMillis(), (deadline - System.nanoTime()) / 1_000_000));
        wait.setString(1, position);
        wait.setDouble(2, left / 1000.0);
        try (ResultSet reached = wait.executeQuery()) {
          reached.next();
          if (reached.getInt(1) == 0) {
            return Duration.ofNanos(System.nanoTime() - started);
          }
        }
        if (System.nanoTime() > deadline) {
          throw GraphException.unavailable("host " + target.name() + " did not catch up to " + position + " within "
              + timeout.toMillis() + " ms; it is at " + single(connection, "SELECT @@GLOBAL.gtid_slave_pos"));
        }
      }
    }
  }

  /** Connections to both ends, opened ahead: a cut-over spends its read-only time on statements, not on handshakes. */
  Link link(Host source, Host target) throws SQLException {
    Connection toSource = hosts.connect(source);
    try {
      return new Link(toSource, hosts.connect(target), target, channel);
    } catch (RuntimeException failed) {
      toSource.close();
      throw failed;
    }
  }

  /** Both ends of the channel, connected. */
  static final class Link implements AutoCloseable {
    private final Connection source;
    private final Connection target;
    private final Host targetHost;
    private final String channel;

    private Link(Connection source, Connection target, Host targetHost, String channel) {
      this.source = source;
      this.target = target;
      this.targetHost = targetHost;
      this.channel = channel;
    }

    Duration catchUp(Duration timeout) throws SQLException {
      return waitFor(target, targetHost, channel, single(source, "SELECT @@GLOBAL.gtid_binlog_pos"), timeout);
    }

    boolean exists() throws SQLException {
      return status(target, channel) != null;
    }

    void remove() throws SQLException {
      Replication.remove(target, channel);
    }

    @Override
    public void close() throws SQLException {
      try {
        source.close();
      } finally {
        target.close();
      }
    }
  }

  /** Stops the channel where it is. */
  void stop(Host target) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      execute(connection, "STOP SLAVE '" + channel + "'");
    }
  }

  /**
   * Runs the (stopped) channel up to exactly {@code position} and waits until it has stopped there, so a
   * snapshot taken on the target now matches the source's at that position; {@link #resume}
   * starts it again.
   */
  void pauseAt(Host target, String position, Duration timeout) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      update(connection, "START SLAVE '" + channel + "' UNTIL master_gtid_pos = ?", position);
      waitFor(connection, target, channel, position, timeout);
      long deadline = System.nanoTime() + timeout.toNanos();
      while (sqlThreadRunning(connection, channel)) {
        if (System.nanoTime() > deadline) {
          throw GraphException.unavailable("replication on " + target.name() + " did not stop at " + position);
        }
        sleep(Duration.ofMillis(10));
      }
    }
  }

  void resume(Host target) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      execute(connection, "START SLAVE '" + channel + "'");
    }
  }

  /** Stops the channel and forgets it (its position and relay logs); nothing when there is none. */
  public void remove(Host target) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      remove(connection);
    }
  }

  private void remove(Connection connection) throws SQLException {
    remove(connection, channel);
  }

  private static void remove(Connection connection, String channel) throws SQLException {
    if (status(connection, channel) == null) {
      return;
    }
    execute(connection, "STOP SLAVE '" + channel + "'");
    execute(connection, "RESET SLAVE '" + channel + "' ALL");
  }

  private static void requireHealthy(Connection connection, String channel) throws SQLException {
    Status status = status(connection, channel);
    if (status == null) {
      throw GraphException.unavailable("the replication channel is gone from the target; "
          + (MOVE.equals(channel) ? "rerun the move to copy again" : "add the replica again"));
    }
    if (!status.sqlError().isEmpty()) {
      throw GraphException.unavailable("replication to the target failed: " + status.sqlError());
    }
  }

  private static boolean sqlThreadRunning(Connection connection, String channel) throws SQLException {
    Status status = status(connection, channel);
    return status != null && status.sqlRunning();
  }

  /** The channel's state over a connection to its target, or null when it has no such channel. */
  public Status status(Connection target) throws SQLException {
    return status(target, channel);
  }

  /** The channel's state on {@code target}, or null when it has no such channel. */
  public Status status(Host target) throws SQLException {
    try (Connection connection = hosts.connect(target)) {
      return status(connection, channel);
    }
  }

  /** The channel's state, or null when the target has no such channel. */
  private static Status status(Connection connection, String channel) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SHOW ALL SLAVES STATUS")) {
      while (rows.next()) {
        if (channel.equals(rows.getString("Connection_name"))) {
          return new Status("Yes".equals(rows.getString("Slave_IO_Running")),
              "Yes".equals(rows.getString("Slave_SQL_Running")),
              java.util.Objects.toString(rows.getString("Last_IO_Error"), ""),
              java.util.Objects.toString(rows.getString("Last_SQL_Error"), ""),
              java.util.Objects.toString(rows.getString("Gtid_IO_Pos"), ""));
        }
      }
      return null;
    }
  }

  /** A channel's state: whether its two threads run, their last errors, and what it has received. */
  public record Status(boolean ioRunning, boolean sqlRunning, String ioError, String sqlError, String received) {}

  static String single(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement(); ResultSet rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }

  static void update(Connection connection, String sql, String value) throws SQLException {
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      statement.setString(1, value);
      statement.execute();
    }
  }

  static void execute(Connection connection, String sql) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw GraphException.unavailable("the move was stopped: its server is shutting down");
    }
  }
}
