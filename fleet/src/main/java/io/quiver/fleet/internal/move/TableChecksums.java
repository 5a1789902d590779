package io.quiver.fleet.internal.move;

import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.store.shard.Host;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.Objects;
import java.util.function.BooleanSupplier;

/**
 * The verify phase, in the spirit of Vitess' VDiff and pt-table-checksum: both hosts read at one
 * position — the target's replication stopped, a snapshot of the source (so at or past where the
 * target stopped), the target replaying up to exactly that position before its own snapshot, then
 * replicating again — and every table is compared chunk by chunk. A chunk is a range of the first
 * primary-key column holding about {@link #CHUNK} rows, its bounds read from the source; each
 * host answers the chunk's row count and the XOR of a 64-bit hash of each row (all columns, NULLs
 * marked), so only two numbers per chunk cross the network. Any chunk that differs is reported
 * with its table and key range.
 */
final class TableChecksums {
  static final int CHUNK = 1000;
  private static final Duration PAUSE_TIMEOUT = Duration.ofSeconds(60);

  /** One chunk whose checksums differ: a key range of a table, and each host's row count there. */
  record Difference(String table, String fromKey, String toKey, long sourceRows, long targetRows) {
    @Override
    public String toString() {
      return table + " keys [" + fromKey + ", " + toKey + "): " + sourceRows + " rows on the source, " + targetRows
          + " on the target" + (sourceRows == targetRows ? ", contents differ" : "");
    }
  }

  /** What a verification compared, and what differed. */
  record Result(long chunks, List<Difference> differences) {}

  private final ShardProvisioner hosts;
  private final Replication replication;

  TableChecksums(ShardProvisioner hosts, Replication replication) {
    this.hosts = hosts;
    this.replication = replication;
  }

  /**
   * @param progress told the chunks to compare, then the chunks compared so far
   */
  Result compare(Host source, Host target, List<String> databases, StepProgress progress, BooleanSupplier stop)
      throws SQLException {
    // The target stops first, so the source's snapshot is at or past it; then it replays up to exactly there.
    replication.stop(target);
    Snapshot atSource = null;
    Snapshot opened = null;
    try {
      atSource = new Snapshot(hosts.connect(source));
      replication.pauseAt(target, atSource.position, PAUSE_TIMEOUT);
      opened = new Snapshot(hosts.connect(target));
    } catch (SQLException | RuntimeException failed) {
      if (atSource != null) {
        atSource.close();
      }
      throw failed;
    } finally {
      replication.resume(target);
    }
    try (Snapshot atSourceView = atSource; Snapshot atTarget = opened) {
      List<Snapshot.Table> tables = new ArrayList<>();
      List<List<Object>> bounds = new ArrayList<>();
      long total = 0;
      for (String database : databases) {
        for (Snapshot.Table table : atSourceView.tables(database)) {
          tables.add(table);
          List<Object> tableBounds = bounds(atSourceView.connection, table);
          bounds.add(tableBounds);
          total += tableBounds.size() + 1;
        }
      }
      progress.total(total);
      List<Difference> differences = new ArrayList<>();
      long compared = 0;
      for (int i = 0; i < tables.size(); i++) {
        Snapshot.Table table = tables.get(i);
        List<Object> tableBounds = bounds.get(i);
        String sumOf = sumOf(table);
        for (int chunk = 0; chunk <= tableBounds.size(); chunk++) {
          Object from = chunk == 0 ? null : tableBounds.get(chunk - 1);
          Object to = chunk == tableBounds.size() ? null : tableBounds.get(chunk);
          Sum there = checksum(atSourceView.connection, sumOf, table, from, to);
          Sum here = checksum(atTarget.connection, sumOf, table, from, to);
          if (!there.equals(here)) {
            differences.add(new Difference(table.qualified(), render(from), render(to), there.rows(), here.rows()));
          }
          progress.done(++compared);
        }
        if (stop.getAsBoolean() || Thread.currentThread().isInterrupted()) {
          throw io.quiver.core.GraphException.unavailable("the verification was stopped");
        }
      }
      return new Result(compared, differences);
    }
  }

  /** Every {@link #CHUNK}th value of the table's first key column, in order, without repeats. */
  private static List<Object> bounds(Connection connection, Snapshot.Table table) throws SQLException {
    List<Object> bounds = new ArrayList<>();
    if (table.firstKey() == null) {
      return bounds;
    }
    try (Statement select = connection.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      select.setFetchSize(Integer.MIN_VALUE);
      try (ResultSet keys = select.executeQuery("SELECT `" + table.firstKey() + "` FROM " + table.qualified()
          + " ORDER BY `" + table.firstKey() + "`")) {
        long row = 0;
        Object last = null;
        while (keys.next()) {
          Object key = keys.getObject(1);
          if (++row % CHUNK == 0 && !Objects.deepEquals(key, last)) {
            bounds.add(key);
            last = key;
          }
        }
      }
    }
    return bounds;
  }

  /** A chunk's row count and the XOR of its rows' 64-bit hashes (unsigned, so as text). */
  private record Sum(long rows, String hash) {}

  /** A table's {@code SELECT count, xor-of-hashes FROM table WHERE 1 = 1}, built once for all its chunks. */
  private static String sumOf(Snapshot.Table table) {
    StringBuilder row = new StringBuilder("CONCAT_WS('#'");
    StringBuilder nulls = new StringBuilder("CONCAT(''");
    for (String column : table.columns()) {
      row.append(", `").append(column).append('`');
      nulls.append(", ISNULL(`").append(column).append("`)");
    }
    row.append(", ").append(nulls).append("))");
    return "SELECT COUNT(*), COALESCE(BIT_XOR(CAST(CONV(SUBSTRING(MD5(" + row + "), 1, 16), 16, 10)"
        + " AS UNSIGNED)), 0) FROM " + table.qualified() + " WHERE 1 = 1";
  }

  private static Sum checksum(Connection connection, String sumOf, Snapshot.Table table, Object from, Object to)
      throws SQLException {
    String sql = sumOf
        + (from == null ? "" : " AND `" + table.firstKey() + "` >= ?")
        + (to == null ? "" : " AND `" + table.firstKey() + "` < ?");
    try (PreparedStatement statement = connection.prepareStatement(sql)) {
      int parameter = 1;
      if (from != null) {
        statement.setObject(parameter++, from);
      }
      if (to != null) {
        statement.setObject(parameter, to);
      }
      try (ResultSet rows = statement.executeQuery()) {
        rows.next();
        return new Sum(rows.getLong(1), rows.getString(2));
      }
    }
  }

  private static String render(Object key) {
    if (key == null) {
      return "…";
    }
    return key instanceof byte[] bytes ? "0x" + HexFormat.of().formatHex(bytes) : key.toString();
  }
}
