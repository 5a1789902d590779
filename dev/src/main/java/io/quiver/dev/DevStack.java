package io.quiver.dev;

import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.config.QuiverConfig;
import io.quiver.cache.CacheSettings;
import io.quiver.embedded.EmbeddedMariaDb;
import io.quiver.embedded.EmbeddedZooKeeper;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.ProvisionReport;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaSource;
import io.quiver.schema.SchemaStore;
import io.quiver.store.ApplierSettings;
import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapSource;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.vertx.core.Vertx;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The embedded default behind {@code ./quiver dev}: a ZooKeeper server and two MariaDB hosts (or
 * more, {@code --hosts N}, the others holding no shards until some are moved there),
 * all with their data under one directory ({@code ./var}) so that it survives restarts, eight
 * shards over the two hosts (so routing across hosts is real from the first day) and the
 * example schema.
 *
 * <p>The hosts take free ports at every start; when they differ from the stored shard map's,
 * the map is republished with the new addresses, as an operator would after moving a host.
 *
 * <p>With {@code --replicas N} each host gets N replicas ({@code var/mariadb/hN-rK}), attached
 * through the admin service once the server runs ({@link #attachReplicas}): seeded from their
 * primary at the first start, resumed from their own position at every later one (their primary's
 * port changed), listed in the map, confirming every write before it is acknowledged.
 */
public final class DevStack implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DevStack.class);
  public static final int SHARDS = 8;
  public static final String USER = "root";
  public static final String PASSWORD = "";

  private final DataDirectory directory;
  private final EmbeddedZooKeeper zooKeeper;
  private final List<EmbeddedMariaDb> hosts;
  /** Each host's replicas, by host name. */
  private final Map<String, List<EmbeddedMariaDb>> replicas;
  private final Schema schema;
  private final String adminToken = newAdminToken();
  /** The shard map this start published (or found current). */
  private ShardMap shardMap;

  private DevStack(DataDirectory directory, EmbeddedZooKeeper zooKeeper, List<EmbeddedMariaDb> hosts,
      Map<String, List<EmbeddedMariaDb>> replicas, Schema schema) {
    this.directory = directory;
    this.zooKeeper = zooKeeper;
    this.hosts = hosts;
    this.replicas = replicas;
    this.schema = schema;
  }

  private static String newAdminToken() {
    byte[] bytes = new byte[24];
    new java.security.SecureRandom().nextBytes(bytes);
    return java.util.Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
  }

  /** The admin token of this run, made anew at every start. */
  public String adminToken() {
    return adminToken;
  }

  /** The least and most hosts a dev stack starts. */
  public static final int MIN_HOSTS = 2;
  public static final int MAX_HOSTS = 9;

  public static DevStack start(Path dataDir) throws Exception {
    return start(dataDir, MIN_HOSTS);
  }

  /**
   * A stack with {@code hostCount} MariaDB hosts, h1 to hN: the shards on the first two, the
   * others in the map holding none, for moving shards onto by hand. A host the stored map names
   * ({@code h3} added by an earlier {@code --hosts 3}, say) is started whatever the count, so a
   * restart never leaves a mapped host unreachable.
   */
  public static DevStack start(Path dataDir, int hostCount) throws Exception {
    return start(dataDir, hostCount, List.of());
  }

  /** As {@link #start(Path, int)}, each MariaDB host started with {@code serverOptions} too ({@link EmbeddedMariaDb#start(Path, int, List)}). */
  public static DevStack start(Path dataDir, int hostCount, List<String> serverOptions) throws Exception {
    return start(dataDir, hostCount, 0, serverOptions);
  }

  /** The most replicas a dev stack gives each host. */
  public static final int MAX_REPLICAS = 3;

  /**
   * As {@link #start(Path, int, List)}, with {@code replicaCount} replicas started for each host
   * (they join their hosts once a server runs: {@link #attachReplicas}).
   */
  public static DevStack start(Path dataDir, int hostCount, int replicaCount, List<String> serverOptions)
      throws Exception {
    if (hostCount < MIN_HOSTS || hostCount > MAX_HOSTS) {
      throw new IllegalArgumentException("a dev stack has " + MIN_HOSTS + " to " + MAX_HOSTS + " hosts, not " + hostCount);
    }
    if (replicaCount < 0 || replicaCount > MAX_REPLICAS) {
      throw new IllegalArgumentException("a dev stack gives each host 0 to " + MAX_REPLICAS + " replicas, not "
          + replicaCount);
    }
    log.info("starting the embedded stack with its data in {}", dataDir.toAbsolutePath());
    EmbeddedMariaDb.requireDurable(dataDir);
    List<AutoCloseable> started = new ArrayList<>();
    try {
      DataDirectory directory = remember(started, DataDirectory.take(dataDir));
      EmbeddedZooKeeper zooKeeper = remember(started, EmbeddedZooKeeper.start(dataDir.resolve("zookeeper"), 0));
      int count = Math.max(hostCount, storedHostCount(zooKeeper));
      List<EmbeddedMariaDb> hosts = new ArrayList<>();
      Map<String, List<EmbeddedMariaDb>> replicas = new java.util.TreeMap<>();
      List<String> replicaOptions = new ArrayList<>(serverOptions);
      // A replica logs what it applies, so that once promoted its binary log holds everything; and
      // it waits to be pointed at its primary's address of this run (attachReplicas) before it
      // replicates, instead of calling the last run's.
      replicaOptions.add("--log-slave-updates=ON");
      replicaOptions.add("--skip-slave-start");
      for (int host = 1; host <= count; host++) {
        hosts.add(remember(started, EmbeddedMariaDb.start(dataDir.resolve("mariadb/h" + host), 0, serverOptions)));
        List<EmbeddedMariaDb> ofHost = new ArrayList<>();
        for (int replica = 1; replica <= replicaCount; replica++) {
          ofHost.add(remember(started, EmbeddedMariaDb.start(dataDir.resolve("mariadb/h" + host + "-r" + replica), 0,
              replicaOptions)));
        }
        replicas.put("h" + host, ofHost);
      }
      DevStack stack = new DevStack(directory, zooKeeper, hosts, replicas, exampleSchema());
      stack.publishAndProvision();
      return stack;
    } catch (Exception | Error e) {
      // Whatever did start must stop, or its threads and processes outlive the failed start.
      for (int i = started.size() - 1; i >= 0; i--) {
        closeQuietly(started.get(i), e);
      }
      throw e;
    }
  }

  private static <T extends AutoCloseable> T remember(List<AutoCloseable> started, T part) {
    started.add(part);
    return part;
  }

  private static void closeQuietly(AutoCloseable part, Throwable failure) {
    try {
      part.close();
    } catch (Exception e) {
      failure.addSuppressed(e);
    }
  }

  public static Schema exampleSchema() {
    try (InputStream in = DevStack.class.getResourceAsStream("example-schema.json")) {
      return SchemaJson.parse(new String(in.readAllBytes(), StandardCharsets.UTF_8));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The example schema; the server defines it through the registry, as an admin call would. */
  public Schema schema() {
    return schema;
  }

  /** The shard map as this start left it in ZooKeeper: today's host addresses. */
  public ShardMap shardMap() {
    return shardMap;
  }

  /** Where {@link #writeToolsConfig} writes, in the data directory. */
  public static final String TOOLS_CONFIG = "quiver-dev.json";

  /**
   * Writes the configuration the command-line tools need to reach this run ({@code ./quiver repair
   * --config …}, {@code provision}): ZooKeeper's address of this start, the MySQL account and the
   * admin token. Rewritten at every start (the ports change); answers the file.
   */
  public Path writeToolsConfig(int httpPort) throws IOException {
    Path file = directory.path().resolve(TOOLS_CONFIG);
    Files.writeString(file, configFile(httpPort).toPrettyString() + "\n");
    return file;
  }

  /**
   * This run's configuration as a file for {@code quiver serve --config} holds it ({@link
   * QuiverConfig#parse}): the HTTP port, ZooKeeper's address of this start, the MySQL account and
   * the admin token; every other setting left to its default, for a caller to add.
   */
  public ObjectNode configFile(int httpPort) {
    ObjectNode json = JsonNodeFactory.instance.objectNode();
    json.putObject("http").put("port", httpPort);
    json.putObject("zooKeeper").put("connect", zooKeeper.connectString());
    json.putObject("mysql").put("user", USER).put("password", PASSWORD);
    json.putObject("admin").put("token", adminToken);
    return json;
  }

  /** The configuration of a server over this stack. */
  public QuiverConfig config(int httpPort) {
    return new QuiverConfig(
        new QuiverConfig.Http(httpPort, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES),
        new QuiverConfig.ZooKeeper(zooKeeper.connectString(), ShardMapStore.DEFAULT_PATH, SchemaStore.DEFAULT_PATH,
            QuiverConfig.DEFAULT_ZK_SESSION_TIMEOUT),
        PoolSettings.defaults(USER, PASSWORD),
        ApplierSettings.defaults(),
        CacheSettings.defaults(),
        null,
        adminToken);
  }

  private void publishAndProvision() throws Exception {
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(
        zooKeeper.connectString(), new ExponentialBackoffRetry(100, 5))) {
      curator.start();
      curator.blockUntilConnected();
      ShardMapStore store = new ShardMapStore(curator, ShardMapStore.DEFAULT_PATH);
      ShardMap map = currentMap(store.read());
      shardMap = map;
      store.read().filter(map::equals).ifPresentOrElse(
          unchanged -> log.info("shard map version {} is current", unchanged.version()),
          () -> publish(store, map));
      // Every shard database and table of the stored schema, created or brought up to date before
      // any server drains an outbox: the same admin service the command line's provision uses.
      ProvisionReport report = provision(curator, map);
      log.info("{} shards ready ({} databases and {} tables created now)",
          report.shards(), report.databasesCreated(), report.tablesCreated());
    }
  }

  /** Provisioning is JDBC only: an admin service without a backend (no pools, no repairs). */
  private static ProvisionReport provision(CuratorFramework curator, ShardMap map) {
    Vertx vertx = Vertx.vertx();
    try (AdminService admin = AdminService.builder(vertx)
        .schemas(SchemaSource.fixed(Schema.empty())).shardMaps(ShardMapSource.fixed(map))
        .pools(PoolSettings.defaults(USER, PASSWORD))
        .registry(curator, ShardMapStore.DEFAULT_PATH, SchemaStore.DEFAULT_PATH)
        .build()) {
      return admin.provision().await();
    } finally {
      vertx.close().await();
    }
  }

  /**
   * The stored map with today's host addresses (and any host of this run it lacks), or a first
   * map: shards 0–3 on h1, 4–7 on h2, further hosts holding none.
   */
  private ShardMap currentMap(Optional<ShardMap> stored) {
    ShardMap map = stored.orElseGet(() -> new ShardMap(1,
        Map.of("h1", new Host("h1", hosts.get(0).address(), List.of()),
            "h2", new Host("h2", hosts.get(1).address(), List.of())),
        List.of(new ShardRange(0, SHARDS / 2 - 1, "h1"), new ShardRange(SHARDS / 2, SHARDS - 1, "h2")),
        List.of(new ShardSpan(0, SHARDS - 1)),
        Map.of()));
    ShardMap moved = map;
    for (int i = 0; i < hosts.size(); i++) {
      // Replicas are listed again by attachReplicas, at this run's addresses, once they replicate.
      moved = moved.withHost(new Host("h" + (i + 1), hosts.get(i).address(), List.of()));
    }
    return stored.isEmpty() || moved.equals(map) ? moved : moved.withVersion(map.version() + 1);
  }

  /** How many hosts h1..hN the stored shard map names: a restart starts at least those. */
  private static int storedHostCount(EmbeddedZooKeeper zooKeeper) throws Exception {
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(
        zooKeeper.connectString(), new ExponentialBackoffRetry(100, 5))) {
      curator.start();
      curator.blockUntilConnected();
      int count = 0;
      for (String name : new ShardMapStore(curator, ShardMapStore.DEFAULT_PATH).read().map(ShardMap::hosts)
          .orElse(Map.of()).keySet()) {
        if (name.matches("h[1-9]")) {
          count = Math.max(count, name.charAt(1) - '0');
        }
      }
      return count;
    }
  }

  private static void publish(ShardMapStore store, ShardMap map) {
    try {
      store.publish(map);
      log.info("published shard map version {}", map.version());
    } catch (Exception e) {
      throw new IllegalStateException("could not publish the shard map", e);
    }
  }

  /**
   * Makes each replica this stack started a replica of its host through {@code admin} (a running
   * server's): seeded at its first start, resumed at later ones, then listed in the shard map.
   */
  public void attachReplicas(AdminService admin) {
    replicas.forEach((host, ofHost) -> ofHost.forEach(replica -> admin.addReplica(host, replica.address(),
        line -> log.info("{}: {}", host, line)).await()));
  }

  @Override
  public void close() {
    replicas.values().forEach(ofHost -> ofHost.forEach(EmbeddedMariaDb::close));
    hosts.forEach(EmbeddedMariaDb::close);
    zooKeeper.close();
    directory.close();
  }
}
