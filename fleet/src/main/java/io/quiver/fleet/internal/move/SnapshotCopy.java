package io.quiver.fleet.internal.move;

import io.quiver.core.GraphException;
import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.store.shard.Host;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.function.BooleanSupplier;

/**
 * The copy phase: every table of the moving databases read from one consistent snapshot of the
 * source and written to the target, whose databases were made empty first (the tables themselves
 * come from the provisioner, as on any new shard). Answers the snapshot's GTID position, where
 * replication then starts. The target's writes skip its binary log ({@code sql_log_bin = 0}): they
 * are a copy, not history any other host should replay.
 *
 * <p>Rows stream from the source (the driver's row-at-a-time mode) and go to the target in
 * multi-row INSERTs of {@link #BATCH} rows with bind parameters. A copy is never resumed halfway:
 * a move that dies here starts the copy again, from a fresh snapshot.
 */
public final class SnapshotCopy {
  static final int BATCH = 500;

  private final ShardProvisioner hosts;

  public SnapshotCopy(ShardProvisioner hosts) {
    this.hosts = hosts;
  }

  /**
   * Copies {@code databases} from {@code source} to {@code target} (whose tables exist, empty).
   *
   * @param progress told the rows to copy, then the rows copied so far, after each batch
   * @param stop asked between batches; true stops the copy with UNAVAILABLE
   */
  public String copy(Host source, Host target, List<String> databases, StepProgress progress, BooleanSupplier stop)
      throws SQLException {
    try (Snapshot snapshot = new Snapshot(hosts.connect(source));
        Connection writer = hosts.connect(target)) {
      try (Statement statement = writer.createStatement()) {
        statement.execute("SET SESSION sql_log_bin = 0");
      }
      List<Snapshot.Table> tables = new ArrayList<>();
      long total = 0;
      for (String database : databases) {
        for (Snapshot.Table table : snapshot.tables(database)) {
          tables.add(table);
          total += snapshot.count(table);
        }
      }
      progress.total(total);
      long copied = 0;
      for (Snapshot.Table table : tables) {
        hosts.provideLike(snapshot.connection, writer, table.database(), table.name());
        copied = copyTable(snapshot.connection, writer, table, copied, progress, stop);
      }
      return snapshot.position;
    }
  }

  private static long copyTable(Connection reader, Connection writer, Snapshot.Table table, long copied,
      StepProgress progress, BooleanSupplier stop) throws SQLException {
    int width = table.columns().size();
    String row = "(" + String.join(", ", Collections.nCopies(width, "?")) + ")";
    String insert = "INSERT INTO " + table.qualified() + " (`" + String.join("`, `", table.columns()) + "`) VALUES ";
    try (Statement select = reader.createStatement(ResultSet.TYPE_FORWARD_ONLY, ResultSet.CONCUR_READ_ONLY)) {
      select.setFetchSize(Integer.MIN_VALUE);
      try (ResultSet rows = select.executeQuery("SELECT `" + String.join("`, `", table.columns()) + "` FROM "
          + table.qualified())) {
        List<Object[]> batch = new ArrayList<>(BATCH);
        while (rows.next()) {
          Object[] values = new Object[width];
          for (int column = 0; column < width; column++) {
            values[column] = rows.getObject(column + 1);
          }
          batch.add(values);
          if (batch.size() == BATCH) {
            copied += write(writer, insert, row, batch);
            progress.done(copied);
            if (stop.getAsBoolean() || Thread.currentThread().isInterrupted()) {
              throw GraphException.unavailable("the copy was stopped");
            }
          }
        }
        copied += write(writer, insert, row, batch);
        progress.done(copied);
      }
    }
    return copied;
  }

  private static int write(Connection writer, String insert, String row, List<Object[]> batch) throws SQLException {
    if (batch.isEmpty()) {
      return 0;
    }
    try (PreparedStatement statement = writer.prepareStatement(insert + String.join(", ",
        Collections.nCopies(batch.size(), row)))) {
      int parameter = 1;
      for (Object[] values : batch) {
        for (Object value : values) {
          statement.setObject(parameter++, value);
        }
      }
      statement.executeUpdate();
    }
    int written = batch.size();
    batch.clear();
    return written;
  }
}
