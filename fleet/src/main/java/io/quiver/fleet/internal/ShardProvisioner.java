package io.quiver.fleet.internal;

import io.quiver.core.GraphException;
import io.quiver.fleet.ProvisionReport;
import io.quiver.schema.Schema;
import io.quiver.store.ShardLayout;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates every shard database of a shard map and, in each, the tables of every type of a
 * schema ({@link ShardLayout}: graph-store says what a shard holds, this creates it). It reads what exists first and creates only what is missing, so a second run changes
 * nothing and says so.
 *
 * <p>Blocking JDBC: call it from a worker thread, never from an event loop.
 */
public final class ShardProvisioner {
  private static final Logger log = LoggerFactory.getLogger(ShardProvisioner.class);

  private final String user;
  private final String password;

  public ShardProvisioner(String user, String password) {
    this.user = user;
    this.password = password == null ? "" : password;
  }

  public ProvisionReport provision(ShardMap map, Schema schema) throws SQLException {
    List<ShardLayout.Table> tables = ShardLayout.tables(schema);
    int shards = 0;
    int databases = 0;
    int created = 0;
    for (Host host : map.hosts().values()) {
      List<Integer> onHost = map.shardsOn(host.name());
      if (onHost.isEmpty()) {
        continue;
      }
      try (Connection connection = connect(host)) {
        Map<String, Set<String>> existing = existingColumns(connection);
        for (int shard : onHost) {
          shards++;
          String database = ShardLayout.database(shard);
          if (!existing.containsKey(database)) {
            execute(connection, "CREATE DATABASE IF NOT EXISTS `" + database + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
            databases++;
          }
          for (ShardLayout.Table table : tables) {
            Set<String> columns = existing.get(database + "." + table.name());
            if (columns == null) {
              execute(connection, table.ddl(shard));
              created++;
            } else {
              for (String upgrade : table.upgrades(shard, columns)) {
                log.info("upgrading {}: {}", table.on(shard), upgrade);
                execute(connection, upgrade);
              }
            }
          }
        }
        try {
          run(connection, ShardLayout.hostStatements(host.name()));
        } catch (SQLException e) {
          if (e.getErrorCode() != ShardLayout.UNKNOWN_SYSTEM_VARIABLE) {
            throw e;
          }
          log.info("host {} is not MariaDB: it keeps no tail position (changes.source: binlog needs MariaDB)",
              host.name());
        }
      }
    }
    ProvisionReport report = new ProvisionReport(shards, databases, created);
    log.info("provisioned {} shards: {} databases and {} tables created", shards, databases, created);
    return report;
  }

  /**
   * Connects to a host and lets go: a host is added to the shard map only if it answers with the
   * servers' account. UNAVAILABLE, naming the host, when it does not.
   */
  public void reach(Host host) throws SQLException {
    try (Connection connection = connect(host)) {
      connection.isValid(5);
    }
  }

  /**
   * Every shard database as {@code dbNNNNN} (with no columns), and every table in one as
   * {@code dbNNNNN.table} with its columns.
   */
  private static Map<String, Set<String>> existingColumns(Connection connection) throws SQLException {
    Map<String, Set<String>> existing = new HashMap<>();
    try (PreparedStatement schemata = connection.prepareStatement(
            "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?");
        PreparedStatement columns = connection.prepareStatement(
            "SELECT table_schema, table_name, column_name FROM information_schema.columns WHERE table_schema LIKE ?")) {
      schemata.setString(1, "db%");
      try (ResultSet rows = schemata.executeQuery()) {
        while (rows.next()) {
          existing.put(rows.getString(1), Set.of());
        }
      }
      columns.setString(1, "db%");
      try (ResultSet rows = columns.executeQuery()) {
        while (rows.next()) {
          existing.computeIfAbsent(rows.getString(1) + "." + rows.getString(2), table -> new HashSet<>())
              .add(rows.getString(3));
        }
      }
    }
    return existing;
  }

  /**
   * Makes {@code database.table} on {@code target} as {@code source} defines it, unless it is
   * there: a shard move's copy brings every table the source has, including one of a type this
   * server does not know yet. Both names are checked ({@link ShardLayout#identifier}).
   */
  public void provideLike(Connection source, Connection target, String database, String table) throws SQLException {
    String qualified = "`" + ShardLayout.identifier(database) + "`.`" + ShardLayout.identifier(table) + "`";
    try (PreparedStatement find = target.prepareStatement(
        "SELECT 1 FROM information_schema.tables WHERE table_schema = ? AND table_name = ?")) {
      find.setString(1, database);
      find.setString(2, table);
      try (ResultSet found = find.executeQuery()) {
        if (found.next()) {
          return;
        }
      }
    }
    String ddl;
    try (Statement show = source.createStatement();
        ResultSet created = show.executeQuery("SHOW CREATE TABLE " + qualified)) {
      created.next();
      ddl = created.getString(2);
    }
    target.setCatalog(database);
    execute(target, ddl);
    log.info("created {} on the target as its source defines it", qualified);
  }

  /**
   * A JDBC connection to a host as the servers' account — the one way admin work reaches a host
   * directly; UNAVAILABLE, naming the host, when it does not answer.
   */
  public Connection connect(Host host) {
    return connect(host, CONNECT_TIMEOUT, null);
  }

  /** How long {@link #connect(Host)} waits for a host to accept the connection. */
  private static final java.time.Duration CONNECT_TIMEOUT = java.time.Duration.ofSeconds(5);

  /**
   * As {@link #connect(Host)}, waiting at most {@code connectTimeout} for the host to accept and, when
   * {@code readTimeout} is not null, at most that for any answer: a host that is frozen rather than
   * down answers nothing, and a failover's probe must not wait for it longer than it asked.
   */
  public Connection connect(Host host, java.time.Duration connectTimeout, java.time.Duration readTimeout) {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    properties.setProperty("connectTimeout", Long.toString(connectTimeout.toMillis()));
    if (readTimeout != null) {
      properties.setProperty("socketTimeout", Long.toString(readTimeout.toMillis()));
    }
    properties.setProperty("allowPublicKeyRetrieval", "true");
    try {
      return DriverManager.getConnection("jdbc:mysql://" + host.primary() + "/", properties);
    } catch (SQLException unreachable) {
      throw GraphException.of(GraphException.Code.UNAVAILABLE, "host " + host.name() + " at " + host.primary()
          + " cannot be reached as " + user + ": " + firstLine(unreachable.getMessage()), unreachable);
    }
  }

  private static String firstLine(String message) {
    return message == null ? "no answer" : message.lines().findFirst().orElse(message);
  }

  /** Runs graph-store's {@code statements} ({@link ShardLayout}) on {@code connection}, in order, with their parameters bound. */
  public static void run(Connection connection, List<ShardLayout.Statement> statements) throws SQLException {
    for (ShardLayout.Statement statement : statements) {
      try (PreparedStatement prepared = connection.prepareStatement(statement.sql())) {
        for (int i = 0; i < statement.parameters().size(); i++) {
          prepared.setObject(i + 1, statement.parameters().get(i));
        }
        prepared.execute();
      }
    }
  }

  private static void execute(Connection connection, String ddl) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(ddl);
    }
  }
}
