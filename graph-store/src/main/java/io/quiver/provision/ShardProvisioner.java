package io.quiver.provision;

import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.shard.Host;
import io.quiver.shard.ShardMap;
import io.quiver.sql.SqlNames;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Creates every shard database of a shard map and, in each, the tables of every type of a
 * schema. It reads what exists first and creates only what is missing, so a second run changes
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
    int shards = 0;
    int databases = 0;
    int tables = 0;
    for (Host host : map.hosts().values()) {
      List<Integer> onHost = map.shardsOn(host.name());
      if (onHost.isEmpty()) {
        continue;
      }
      try (Connection connection = connect(host)) {
        Set<String> existing = existingTables(connection);
        for (int shard : onHost) {
          shards++;
          Map<String, String> wanted = tablesOf(shard, schema);
          if (!existing.contains(SqlNames.database(shard))) {
            execute(connection, Ddl.createDatabase(shard));
            databases++;
          }
          for (Map.Entry<String, String> table : wanted.entrySet()) {
            if (!existing.contains(SqlNames.database(shard) + "." + table.getKey())) {
              execute(connection, table.getValue());
              tables++;
            }
          }
        }
      }
    }
    ProvisionReport report = new ProvisionReport(shards, databases, tables);
    log.info("provisioned {} shards: {} databases and {} tables created", shards, databases, tables);
    return report;
  }

  private static Map<String, String> tablesOf(int shard, Schema schema) {
    Map<String, String> tables = new LinkedHashMap<>();
    for (NodeType type : schema.nodeTypes().values()) {
      tables.put(type.tableName(), Ddl.nodeTable(shard, type));
    }
    for (EdgeType type : schema.edgeTypes().values()) {
      tables.put(type.tableName(), Ddl.edgeTable(shard, type));
    }
    tables.put(Ddl.EDGE_COUNTS, Ddl.edgeCounts(shard));
    tables.put(Ddl.OUTBOX, Ddl.outbox(shard));
    return tables;
  }

  /** Every shard database as {@code dbNNNNN}, and every table in one as {@code dbNNNNN.table}. */
  private static Set<String> existingTables(Connection connection) throws SQLException {
    Set<String> existing = new HashSet<>();
    try (PreparedStatement schemata = connection.prepareStatement(
            "SELECT schema_name FROM information_schema.schemata WHERE schema_name LIKE ?");
        PreparedStatement tables = connection.prepareStatement(
            "SELECT table_schema, table_name FROM information_schema.tables WHERE table_schema LIKE ?")) {
      schemata.setString(1, "db%");
      try (ResultSet rows = schemata.executeQuery()) {
        while (rows.next()) {
          existing.add(rows.getString(1));
        }
      }
      tables.setString(1, "db%");
      try (ResultSet rows = tables.executeQuery()) {
        while (rows.next()) {
          existing.add(rows.getString(1) + "." + rows.getString(2));
        }
      }
    }
    return existing;
  }

  private Connection connect(Host host) throws SQLException {
    Properties properties = new Properties();
    properties.setProperty("user", user);
    properties.setProperty("password", password);
    properties.setProperty("connectTimeout", "5000");
    properties.setProperty("allowPublicKeyRetrieval", "true");
    return DriverManager.getConnection("jdbc:mysql://" + host.primary() + "/", properties);
  }

  private static void execute(Connection connection, String ddl) throws SQLException {
    try (Statement statement = connection.createStatement()) {
      statement.execute(ddl);
    }
  }
}
