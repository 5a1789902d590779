package io.quiver.fleet.internal.move;

import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.store.ShardLayout;
import io.quiver.store.shard.Host;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * A moved shard's old copy: after the cut-over, the source's database is renamed aside — its
 * tables moved into {@code retired_<UTC yyyyMMddHHmmss>_dbNNNNN}, which nothing routes to and the
 * provisioner never looks at — and kept for a grace period as the way back, then dropped by
 * {@code quiver shards drop-retired}. Renaming also fences the old copy for good: a statement that
 * still reached it would find no table rather than write where no one reads. Neither the rename nor
 * the drop goes to the binary log ({@code sql_log_bin = 0}): they concern this host alone.
 */
final class RetiredShards {
  private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss");
  private static final Pattern RETIRED = Pattern.compile("retired_([0-9]{14})_db[0-9]{5}");

  private final ShardProvisioner hosts;
  private final Clock clock;

  RetiredShards(ShardProvisioner hosts, Clock clock) {
    this.hosts = hosts;
    this.clock = clock;
  }

  /** Renames each of {@code databases} on {@code host} aside; answers the new names. */
  List<String> retire(Host host, List<String> databases) throws SQLException {
    String stamp = STAMP.format(LocalDateTime.ofInstant(clock.instant(), ZoneOffset.UTC));
    List<String> retired = new ArrayList<>();
    try (Connection connection = hosts.connect(host); Statement statement = connection.createStatement()) {
      statement.execute("SET SESSION sql_log_bin = 0");
      for (String database : databases) {
        List<String> tables = tables(connection, database);
        if (tables.isEmpty() && !exists(connection, database)) {
          continue;
        }
        String aside = "retired_" + stamp + "_" + database;
        statement.execute("CREATE DATABASE IF NOT EXISTS `" + aside + "`");
        for (String table : tables) {
          statement.execute("RENAME TABLE `" + database + "`.`" + table + "` TO `" + aside + "`.`" + table + "`");
        }
        statement.execute("DROP DATABASE `" + database + "`");
        retired.add(host.name() + ":" + aside);
      }
    }
    return retired;
  }

  /** Drops every retired copy on {@code fleet} older than {@code grace}; answers what it dropped. */
  List<String> dropOlderThan(Collection<Host> fleet, Duration grace) throws SQLException {
    Instant cutoff = clock.instant().minus(grace);
    List<String> dropped = new ArrayList<>();
    for (Host host : fleet) {
      try (Connection connection = hosts.connect(host); Statement statement = connection.createStatement()) {
        statement.execute("SET SESSION sql_log_bin = 0");
        for (String database : retiredOn(connection)) {
          Matcher name = RETIRED.matcher(database);
          if (name.matches() && !LocalDateTime.parse(name.group(1), STAMP).toInstant(ZoneOffset.UTC).isAfter(cutoff)) {
            statement.execute("DROP DATABASE `" + database + "`");
            dropped.add(host.name() + ":" + database);
          }
        }
      }
    }
    return dropped;
  }

  private static List<String> retiredOn(Connection connection) throws SQLException {
    List<String> names = new ArrayList<>();
    try (PreparedStatement list = connection.prepareStatement(
        "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?")) {
      list.setString(1, "retired\\_%");
      try (ResultSet rows = list.executeQuery()) {
        while (rows.next()) {
          if (RETIRED.matcher(rows.getString(1)).matches()) {
            names.add(rows.getString(1));
          }
        }
      }
    }
    return names;
  }

  private static List<String> tables(Connection connection, String database) throws SQLException {
    List<String> tables = new ArrayList<>();
    try (PreparedStatement list = connection.prepareStatement(
        "SELECT table_name FROM information_schema.tables WHERE table_schema = ?")) {
      list.setString(1, database);
      try (ResultSet rows = list.executeQuery()) {
        while (rows.next()) {
          tables.add(ShardLayout.identifier(rows.getString(1)));
        }
      }
    }
    return tables;
  }

  private static boolean exists(Connection connection, String database) throws SQLException {
    try (PreparedStatement find = connection.prepareStatement(
        "SELECT 1 FROM information_schema.schemata WHERE schema_name = ?")) {
      find.setString(1, database);
      try (ResultSet rows = find.executeQuery()) {
        return rows.next();
      }
    }
  }
}
