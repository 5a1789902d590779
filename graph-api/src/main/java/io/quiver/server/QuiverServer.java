package io.quiver.server;

import io.quiver.cache.CachingGraphStore;
import io.quiver.config.QuiverConfig;
import io.quiver.embedded.Ports;
import io.quiver.metrics.QuiverMetrics;
import io.quiver.schema.Schema;
import io.quiver.provision.ShardProvisioner;
import io.quiver.schema.SchemaRegistry;
import io.quiver.schema.SchemaStore;
import io.quiver.schema.SchemaWatcher;
import io.quiver.shard.ShardMapWatcher;
import io.quiver.store.GraphStore;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.time.Duration;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Quiver server. {@link #start} connects to ZooKeeper, waits for the shard map,
 * opens one pool per MySQL host and serves HTTP on one event loop per core; {@link #close}
 * undoes it in reverse order.
 *
 * <p>Starting blocks the calling thread (it waits for ZooKeeper); call it from a main or
 * worker thread, never from an event loop.
 */
public final class QuiverServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QuiverServer.class);
  /** How long start waits for ZooKeeper and the first shard map. */
  public static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private final Vertx vertx;
  private final CuratorFramework curator;
  private final ShardMapWatcher watcher;
  private final SchemaWatcher schemas;
  private final GraphStore store;
  private final int port;

  private QuiverServer(Vertx vertx, CuratorFramework curator, ShardMapWatcher watcher, SchemaWatcher schemas,
      GraphStore store, int port) {
    this.vertx = vertx;
    this.curator = curator;
    this.watcher = watcher;
    this.schemas = schemas;
    this.store = store;
    this.port = port;
  }

  /**
   * Starts a server.
   *
   * @param seed types to define through the registry before serving (a schema file, or the dev
   *     stack's example); null to serve the registry as ZooKeeper holds it
   */
  public static QuiverServer start(QuiverConfig config, Schema seed) throws Exception {
    CuratorFramework curator = CuratorFrameworkFactory.builder()
        .connectString(config.zooKeeper().connect())
        .sessionTimeoutMs((int) config.zooKeeper().sessionTimeout().toMillis())
        .retryPolicy(new ExponentialBackoffRetry(200, 10, 5_000))
        .build();
    curator.start();
    ShardMapWatcher watcher = new ShardMapWatcher(curator, config.zooKeeper().shardMapPath());
    watcher.start();
    watcher.awaitFirst(STARTUP_TIMEOUT);
    SchemaWatcher schemas = new SchemaWatcher(curator, config.zooKeeper().schemaPath());
    schemas.start();
    schemas.awaitInitialized(STARTUP_TIMEOUT);

    int cores = Runtime.getRuntime().availableProcessors();
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(cores));
    GraphStore uncached = GraphStore.builder(vertx)
        .pools(config.mysql())
        .shardMaps(watcher)
        .schemas(schemas)
        .drainOutboxes(curator, config.outbox())
        .clock(Clock.systemUTC())
        .build();
    GraphStore store = config.cache().enabled()
        ? CachingGraphStore.wrap(vertx, uncached, schemas, curator, config.cache())
        : uncached;
    ShardProvisioner provisioner = new ShardProvisioner(config.mysql().user(), config.mysql().password());
    SchemaRegistry registry = new SchemaRegistry(new SchemaStore(curator, config.zooKeeper().schemaPath()),
        schema -> provisioner.provision(store.shardMap(), schema));
    if (seed != null) {
      schemas.awaitVersion(registry.apply(seed).version(), STARTUP_TIMEOUT);
    }
    int port = config.http().port() == 0 ? Ports.free() : config.http().port();
    Services services = new Services(config, store, schemas, registry, new QuiverMetrics(store),
        () -> curator.getZookeeperClient().isConnected());
    vertx.deployVerticle(() -> new ApiVerticle(services, port), new DeploymentOptions().setInstances(cores))
        .await();
    log.info("Quiver serves HTTP on port {} over {} shards on {} hosts, schema version {}", port,
        watcher.current().allShards().size(), watcher.current().hosts().size(), schemas.current().version());
    return new QuiverServer(vertx, curator, watcher, schemas, store, port);
  }

  public int port() {
    return port;
  }

  public GraphStore store() {
    return store;
  }

  @Override
  public void close() {
    // The store first: its outbox leases, cache peer registration and pools go before ZooKeeper.
    store.close().otherwiseEmpty().await();
    vertx.close().await();
    schemas.close();
    watcher.close();
    curator.close();
  }
}
