package io.quiver.benchmarks.workload;

import io.quiver.dev.DevStack;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Locale;

/**
 * What the report asks the MariaDB hosts of the dev stack, over administrative JDBC connections of
 * the benchmark's own (never a target's): the prepared statements they hold, the shard data's size,
 * InnoDB's I/O counters, which say what an operation cost the disk where CPU time cannot (a target
 * waiting on the disk spends little CPU), and the statements the hosts ran, which say where a
 * target's MariaDB CPU per operation comes from (a cache's misses sending more than the reads
 * they replace, say).
 */
final class HostStatus {
  private HostStatus() {}

  /** One server status variable's value, named by a bind argument. */
  private static final String STATUS = "(SELECT variable_value FROM information_schema.global_status"
      + " WHERE variable_name = ?)";

  /**
   * The hosts' counters summed, since each started.
   *
   * @param pageReads pages read from disk because the buffer pool did not hold them
   *     ({@code Innodb_buffer_pool_reads})
   * @param fsyncs {@code fsync()} calls on data and log files ({@code Innodb_data_fsyncs})
   * @param statements statements clients sent, a prepared statement's every execution included and
   *     its preparation not ({@code Questions}); this status query's own count too, two per host
   * @param prepares statements prepared ({@code Com_stmt_prepare}): each one MariaDB parses and
   *     plans again, where an execution of a statement already prepared skips both — a client
   *     whose statement cache is smaller than the statements it sends prepares on every miss
   * @param lockWaits row locks a statement had to wait for ({@code Innodb_row_lock_waits}): where
   *     writers queue on the same rows (a popular list's count row), which CPU time cannot show
   * @param lockWaitMs the milliseconds spent waiting for them ({@code Innodb_row_lock_time})
   * @param deadlocks transactions InnoDB rolled back to break a deadlock ({@code Innodb_deadlocks})
   */
  record Counters(long pageReads, long fsyncs, long statements, long prepares, long lockWaits, long lockWaitMs,
      long deadlocks) {
    /** What happened between {@code earlier} and this, per operation. */
    Report.HostWork perOperation(Counters earlier, long operations) {
      return new Report.HostWork((double) (pageReads - earlier.pageReads) / operations,
          (double) (fsyncs - earlier.fsyncs) / operations, (double) (statements - earlier.statements) / operations,
          (double) (prepares - earlier.prepares) / operations, (double) (lockWaits - earlier.lockWaits) / operations,
          (double) (lockWaitMs - earlier.lockWaitMs) / operations, (double) (deadlocks - earlier.deadlocks) / operations);
    }

    Counters plus(Counters other) {
      return new Counters(pageReads + other.pageReads, fsyncs + other.fsyncs, statements + other.statements,
          prepares + other.prepares, lockWaits + other.lockWaits, lockWaitMs + other.lockWaitMs,
          deadlocks + other.deadlocks);
    }
  }

  private static final List<String> COUNTED = List.of("INNODB_BUFFER_POOL_READS", "INNODB_DATA_FSYNCS", "QUESTIONS",
      "COM_STMT_PREPARE", "INNODB_ROW_LOCK_WAITS", "INNODB_ROW_LOCK_TIME", "INNODB_DEADLOCKS");

  static Counters counters(ShardMap map) throws SQLException {
    Counters sum = new Counters(0, 0, 0, 0, 0, 0, 0);
    String sql = "SELECT " + String.join(", ", Collections.nCopies(COUNTED.size(), STATUS));
    for (Host host : map.hosts().values()) {
      sum = sum.plus(ask(host, sql, row -> new Counters(row.getLong(1), row.getLong(2), row.getLong(3),
          row.getLong(4), row.getLong(5), row.getLong(6), row.getLong(7)), COUNTED.toArray()));
    }
    return sum;
  }

  /**
   * The prepared statements every host holds once all the targets have run, against its cap: the
   * statement caches of every target's connections add up on the shared hosts
   * ({@link Workload#PREPARED_STATEMENTS_PER_HOST}).
   */
  static String preparedStatements(ShardMap map) throws SQLException {
    List<String> held = new ArrayList<>();
    for (Host host : map.hosts().values()) {
      held.add(ask(host, "SELECT " + STATUS + ", @@max_prepared_stmt_count",
          row -> String.format(Locale.ROOT, "%s %,d of %,d", host.name(), row.getLong(1), row.getLong(2)),
          "PREPARED_STMT_COUNT"));
    }
    return "prepared statements held on the hosts after the last run: " + String.join(", ", held) + ".";
  }

  /** The shard databases' size on every host, data and indexes, as InnoDB reports it. */
  static long dataBytes(ShardMap map) throws SQLException {
    long bytes = 0;
    for (Host host : map.hosts().values()) {
      bytes += ask(host, "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables"
          + " WHERE table_schema LIKE ?", row -> row.getLong(1), "db%");
    }
    return bytes;
  }

  /** What one row of an answer reads as. */
  private interface Reading<T> {
    T read(ResultSet row) throws SQLException;
  }

  /** The one row {@code sql}, with its bind {@code arguments}, answers on {@code host}, on a connection of its own. */
  private static <T> T ask(Host host, String sql, Reading<T> reading, Object... arguments) throws SQLException {
    try (Connection connection = connect(host);
        PreparedStatement statement = connection.prepareStatement(sql)) {
      for (int i = 0; i < arguments.length; i++) {
        statement.setObject(i + 1, arguments[i]);
      }
      try (ResultSet row = statement.executeQuery()) {
        row.next();
        return reading.read(row);
      }
    }
  }

  private static Connection connect(Host host) throws SQLException {
    return DriverManager.getConnection("jdbc:mysql://" + host.primary() + "/", DevStack.USER, DevStack.PASSWORD);
  }
}
