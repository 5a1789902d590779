package io.quiver.fleet.internal.move;

import io.quiver.store.ShardLayout;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One consistent read view of a host ({@code START TRANSACTION WITH CONSISTENT SNAPSHOT}) and the
 * binary-log position it stands at: MariaDB reports the log file and offset the snapshot matches
 * ({@code binlog_snapshot_file}, {@code binlog_snapshot_position}) and turns them into a GTID
 * position ({@code BINLOG_GTID_POS}) — the position replication starts from, or stops at, for
 * the copy and the checksums to match what the other host holds. Closing it ends the transaction
 * and the connection.
 */
final class Snapshot implements AutoCloseable {
  final Connection connection;
  final String position;

  /** One table of a shard database: its columns in order and the first column of its primary key. */
  record Table(String database, String name, List<String> columns, String firstKey) {
    String qualified() {
      return "`" + database + "`.`" + name + "`";
    }
  }

  Snapshot(Connection connection) throws SQLException {
    this.connection = connection;
    try (Statement statement = connection.createStatement()) {
      statement.execute("SET SESSION TRANSACTION ISOLATION LEVEL REPEATABLE READ");
      connection.setAutoCommit(false);
      statement.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
      String file = null;
      long offset = 0;
      try (ResultSet rows = statement.executeQuery("SHOW SESSION STATUS LIKE 'binlog_snapshot_%'")) {
        while (rows.next()) {
          if (rows.getString(1).equalsIgnoreCase("Binlog_snapshot_file")) {
            file = rows.getString(2);
          } else if (rows.getString(1).equalsIgnoreCase("Binlog_snapshot_position")) {
            offset = Long.parseLong(rows.getString(2));
          }
        }
      }
      if (file == null || file.isEmpty()) {
        throw new SQLException("the host runs without a binary log (log_bin); a shard move needs one");
      }
      try (PreparedStatement gtid = connection.prepareStatement("SELECT BINLOG_GTID_POS(?, ?)")) {
        gtid.setString(1, file);
        gtid.setLong(2, offset);
        try (ResultSet rows = gtid.executeQuery()) {
          rows.next();
          this.position = rows.getString(1) == null ? "" : rows.getString(1);
        }
      }
    }
  }

  /** The tables of {@code database}, by name. */
  List<Table> tables(String database) throws SQLException {
    Map<String, List<String>> columns = new LinkedHashMap<>();
    Map<String, String> keys = new LinkedHashMap<>();
    try (PreparedStatement list = connection.prepareStatement("SELECT table_name, column_name FROM"
        + " information_schema.columns WHERE table_schema = ? ORDER BY table_name, ordinal_position")) {
      list.setString(1, database);
      try (ResultSet rows = list.executeQuery()) {
        while (rows.next()) {
          columns.computeIfAbsent(ShardLayout.identifier(rows.getString(1)), table -> new ArrayList<>()).add(ShardLayout.identifier(rows.getString(2)));
        }
      }
    }
    try (PreparedStatement list = connection.prepareStatement("SELECT table_name, column_name FROM"
        + " information_schema.key_column_usage WHERE table_schema = ? AND constraint_name = 'PRIMARY'"
        + " AND ordinal_position = 1")) {
      list.setString(1, database);
      try (ResultSet rows = list.executeQuery()) {
        while (rows.next()) {
          keys.put(rows.getString(1), ShardLayout.identifier(rows.getString(2)));
        }
      }
    }
    List<Table> tables = new ArrayList<>();
    columns.forEach((table, names) -> tables.add(new Table(database, table, List.copyOf(names), keys.get(table))));
    return tables;
  }

  long count(Table table) throws SQLException {
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM " + table.qualified())) {
      rows.next();
      return rows.getLong(1);
    }
  }

  @Override
  public void close() throws SQLException {
    try {
      connection.rollback();
    } finally {
      connection.close();
    }
  }
}
