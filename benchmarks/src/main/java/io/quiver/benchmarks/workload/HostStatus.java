package io.quiver.benchmarks.workload;

import io.quiver.dev.DevStack;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * What the report asks the MariaDB hosts of the dev stack, over administrative JDBC connections of
 * the benchmark's own (never a target's): the prepared statements they hold, the shard data's size,
 * and InnoDB's I/O counters, which say what an operation cost the disk where CPU time cannot (a
 * target waiting on the disk spends little CPU).
 */
final class HostStatus {
  private HostStatus() {}

  /**
   * InnoDB's I/O counters summed over the hosts, since each started.
   *
   * @param pageReads pages read from disk because the buffer pool did not hold them
   *     ({@code Innodb_buffer_pool_reads})
   * @param fsyncs {@code fsync()} calls on data and log files ({@code Innodb_data_fsyncs})
   */
  record InnoDbIo(long pageReads, long fsyncs) {
    /** What happened between {@code earlier} and this, per operation. */
    Report.Disk perOperation(InnoDbIo earlier, long operations) {
      return new Report.Disk((double) (pageReads - earlier.pageReads) / operations,
          (double) (fsyncs - earlier.fsyncs) / operations);
    }
  }

  static InnoDbIo innoDbIo(ShardMap map) throws SQLException {
    long[] sums = new long[2];
    for (Host host : map.hosts().values()) {
      ask(host, "SELECT variable_name, variable_value FROM information_schema.global_status WHERE variable_name IN"
          + " ('INNODB_BUFFER_POOL_READS', 'INNODB_DATA_FSYNCS')", rows -> {
            while (rows.next()) {
              sums[rows.getString(1).equalsIgnoreCase("INNODB_BUFFER_POOL_READS") ? 0 : 1] += rows.getLong(2);
            }
            return null;
          });
    }
    return new InnoDbIo(sums[0], sums[1]);
  }

  /**
   * The prepared statements every host holds once all the targets have run, against its cap: the
   * statement caches of every target's connections add up on the shared hosts.
   */
  static String preparedStatements(ShardMap map) throws SQLException {
    List<String> held = new ArrayList<>();
    for (Host host : map.hosts().values()) {
      held.add(ask(host, "SELECT (SELECT variable_value FROM information_schema.global_status WHERE variable_name ="
          + " 'PREPARED_STMT_COUNT'), @@max_prepared_stmt_count", row -> {
            row.next();
            return String.format(Locale.ROOT, "%s %,d of %,d", host.name(), row.getLong(1), row.getLong(2));
          }));
    }
    return "prepared statements held on the hosts after the last run: " + String.join(", ", held) + ".";
  }

  /** The shard databases' size on every host, data and indexes, as InnoDB reports it. */
  static long dataBytes(ShardMap map) throws SQLException {
    long bytes = 0;
    for (Host host : map.hosts().values()) {
      bytes += ask(host, "SELECT COALESCE(SUM(data_length + index_length), 0) FROM information_schema.tables"
          + " WHERE table_schema LIKE 'db%'", rows -> {
            rows.next();
            return rows.getLong(1);
          });
    }
    return bytes;
  }

  /** What a reading of {@code sql}'s rows answers. */
  private interface Reading<T> {
    T read(ResultSet rows) throws SQLException;
  }

  /** {@code sql} (constant text, no arguments) asked of {@code host} on a connection of its own. */
  private static <T> T ask(Host host, String sql, Reading<T> reading) throws SQLException {
    try (Connection connection = connect(host);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery(sql)) {
      return reading.read(rows);
    }
  }

  private static Connection connect(Host host) throws SQLException {
    return DriverManager.getConnection("jdbc:mysql://" + host.primary() + "/", DevStack.USER, DevStack.PASSWORD);
  }
}
