package io.quiver.api.testing;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.server.QuiverServer;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.store.GraphStore;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import java.time.Duration;
import java.util.Map;

/** A real Quiver server over the test backend, and a plain HTTP client to call it. */
public final class ApiFixture implements AutoCloseable {
  /** Where the test servers' caches find each other. */
  public static final String CACHE_PEERS_PATH = "/quiver-test/cache-peers";

  public final TestBackend backend = TestBackend.get();
  private final ShardTables tables = new ShardTables(backend);
  public final QuiverServer server;
  private final ApiClient client;
  private final AutoCloseable cacheWatch;

  public ApiFixture() throws Exception {
    this(TestBackend.get().poolSettings(), QuiverConfig.DEFAULT_REQUEST_TIMEOUT);
  }

  /** A server with its own pool sizes and request timeout, for the protection tests. */
  public ApiFixture(io.quiver.store.PoolSettings pools, Duration requestTimeout) throws Exception {
    this(pools, requestTimeout, io.quiver.cache.CacheSettings.defaults().withPeersPath(CACHE_PEERS_PATH));
  }

  /** A server with its own pools, request timeout and cache settings. */
  public ApiFixture(io.quiver.store.PoolSettings pools, Duration requestTimeout, io.quiver.cache.CacheSettings cache)
      throws Exception {
    this(new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES, requestTimeout), pools, cache);
  }

  /** A server with its own HTTP settings (timeouts, limits). */
  public ApiFixture(QuiverConfig.Http http) throws Exception {
    this(http, TestBackend.get().poolSettings(),
        io.quiver.cache.CacheSettings.defaults().withPeersPath(CACHE_PEERS_PATH));
  }

  private ApiFixture(QuiverConfig.Http http, io.quiver.store.PoolSettings pools, io.quiver.cache.CacheSettings cache)
      throws Exception {
    this(http, pools, cache, TestBackend.get().zooKeeperConnectString(), Duration.ofSeconds(15),
        TestBackend.SHARD_MAP_PATH);
  }

  /**
   * A server that routes by the shard map at {@code shardMapPath} (published by the test) rather
   * than the shared one: for tests that change the map — add hosts, open shards, move them.
   */
  public static ApiFixture overShardMap(String shardMapPath) throws Exception {
    return new ApiFixture(new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES), TestBackend.get().poolSettings(),
        io.quiver.cache.CacheSettings.defaults().withPeersPath(CACHE_PEERS_PATH), TestBackend.get().zooKeeperConnectString(),
        Duration.ofSeconds(15), shardMapPath);
  }

  /**
   * A server of a fleet of the test's own: the shard map at {@code shardMapPath} and outbox leases
   * beside it ({@code <shardMapPath>-leases}), so its drainers serve that map's shards and no other
   * test's — for tests that move shards.
   */
  public static ApiFixture overFleet(String shardMapPath) throws Exception {
    return overFleet(shardMapPath, io.quiver.store.ChangeLogSettings.defaults());
  }

  /** {@link #overFleet(String)}, its shards keeping their change logs as {@code changeLog} says. */
  public static ApiFixture overFleet(String shardMapPath, io.quiver.store.ChangeLogSettings changeLog)
      throws Exception {
    io.quiver.store.ApplierSettings own = TestBackend.applierSettings().withLeasePath(shardMapPath + "-leases");
    return new ApiFixture(new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES), TestBackend.get().poolSettings(),
        io.quiver.cache.CacheSettings.defaults().withPeersPath(shardMapPath + "-cache-peers"),
        TestBackend.get().zooKeeperConnectString(), Duration.ofSeconds(15), shardMapPath, own, changeLog);
  }

  /** A server over the shared map whose outbox drainers run by {@code applier}: its lease path, its idle delay. */
  public static ApiFixture withApplier(io.quiver.store.ApplierSettings applier) throws Exception {
    return new ApiFixture(new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES), TestBackend.get().poolSettings(),
        io.quiver.cache.CacheSettings.defaults().withPeersPath(CACHE_PEERS_PATH), TestBackend.get().zooKeeperConnectString(),
        Duration.ofSeconds(15), TestBackend.SHARD_MAP_PATH, applier);
  }

  /**
   * A server that reaches ZooKeeper at {@code zooKeeper} — a {@link BlackHoleProxy} a test can
   * cut — with its own session timeout and cache settings.
   */
  public ApiFixture(String zooKeeper, Duration sessionTimeout, io.quiver.cache.CacheSettings cache) throws Exception {
    this(new QuiverConfig.Http(0, QuiverConfig.DEFAULT_BODY_LIMIT_BYTES), TestBackend.get().poolSettings(), cache,
        zooKeeper, sessionTimeout, TestBackend.SHARD_MAP_PATH);
  }

  private ApiFixture(QuiverConfig.Http http, io.quiver.store.PoolSettings pools, io.quiver.cache.CacheSettings cache,
      String zooKeeper, Duration sessionTimeout, String shardMapPath) throws Exception {
    this(http, pools, cache, zooKeeper, sessionTimeout, shardMapPath, TestBackend.applierSettings());
  }

  private ApiFixture(QuiverConfig.Http http, io.quiver.store.PoolSettings pools, io.quiver.cache.CacheSettings cache,
      String zooKeeper, Duration sessionTimeout, String shardMapPath, io.quiver.store.ApplierSettings applier)
      throws Exception {
    this(http, pools, cache, zooKeeper, sessionTimeout, shardMapPath, applier,
        io.quiver.store.ChangeLogSettings.defaults());
  }

  private ApiFixture(QuiverConfig.Http http, io.quiver.store.PoolSettings pools, io.quiver.cache.CacheSettings cache,
      String zooKeeper, Duration sessionTimeout, String shardMapPath, io.quiver.store.ApplierSettings applier,
      io.quiver.store.ChangeLogSettings changeLog) throws Exception {
    QuiverConfig config = new QuiverConfig(
        http,
        new QuiverConfig.ZooKeeper(zooKeeper, shardMapPath, TestBackend.SCHEMA_PATH, sessionTimeout),
        pools,
        applier,
        cache,
        null,
        TestBackend.ADMIN_TOKEN).withChangeLog(changeLog);
    server = QuiverServer.start(config, null);
    client = new ApiClient(server.port());
    GraphStore truth = server.backend().store();
    cacheWatch = server.cache()
        .map(cached -> GraphInvariants.watchCache(() -> cached.differencesFrom(truth)))
        .orElse(() -> { });
  }

  public int port() {
    return server.port();
  }

  public ApiClient client() {
    return client;
  }

  public Answer call(HttpMethod method, String path) {
    return client.call(method, path);
  }

  public Answer call(HttpMethod method, String path, String body) {
    return client.call(method, path, body);
  }

  public Answer call(HttpMethod method, String path, String body, Map<String, String> headers) {
    return client.call(method, path, body, headers);
  }

  public Answer send(HttpMethod method, String path, Buffer body, Map<String, String> headers) {
    return client.send(method, path, body, headers);
  }

  /** Rows of a node type's table across every shard, read straight from the hosts: what a request left behind. */
  /** The shard tables, read straight from the hosts. */
  public ShardTables tables() {
    return tables;
  }

  public long nodeRows(String nodeType) throws Exception {
    return tables.rows(tables.nodesTable(nodeType));
  }

  /** Rows of an edge type's table across every shard, tombstones included. */
  public long edgeRows(String edgeType) throws Exception {
    return tables.rows(tables.edgesTable(edgeType));
  }

  /** The targets of the active edges from {@code from}, newest first, read straight from the hosts. */
  public java.util.List<Long> activeTargets(String edgeType, io.quiver.store.NodeId from) throws Exception {
    return tables.activeTargets(edgeType, from);
  }

  /** A node's data exactly as stored in its type's table, read straight from its host. */
  public String storedData(String nodeType, io.quiver.store.NodeId id) throws Exception {
    return tables.storedData(nodeType, id);
  }

  /** A new user (named {@code name}) created until one lands on a shard of {@code host}; answers its ID. */
  public String userOn(String host, String name) {
    for (int i = 0; i < 200; i++) {
      Answer user = call(HttpMethod.POST, "/v1/nodes/user", "{\"data\": {\"name\": \"" + name + "\"}}");
      if (hostOf(user.body().get("shard").asInt()).equals(host)) {
        return user.id();
      }
    }
    throw new AssertionError("no user landed on " + host);
  }

  /** The host holding a shard in the test map. */
  public String hostOf(int shard) {
    return backend.shardMap().rangeOf(shard).orElseThrow().host();
  }

  @Override
  public void close() {
    try {
      cacheWatch.close();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    client.close();
    server.close();
  }
}
