package io.quiver.server;

import io.quiver.config.QuiverConfig;
import io.quiver.embedded.Ports;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
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
  private final GraphStore store;
  private final int port;

  private QuiverServer(Vertx vertx, CuratorFramework curator, ShardMapWatcher watcher, GraphStore store, int port) {
    this.vertx = vertx;
    this.curator = curator;
    this.watcher = watcher;
    this.store = store;
    this.port = port;
  }

  public static QuiverServer start(QuiverConfig config, Schema schema) throws Exception {
    CuratorFramework curator = CuratorFrameworkFactory.builder()
        .connectString(config.zooKeeper().connect())
        .sessionTimeoutMs((int) config.zooKeeper().sessionTimeout().toMillis())
        .retryPolicy(new ExponentialBackoffRetry(200, 10, 5_000))
        .build();
    curator.start();
    ShardMapWatcher watcher = new ShardMapWatcher(curator, config.zooKeeper().shardMapPath());
    watcher.start();
    watcher.awaitFirst(STARTUP_TIMEOUT);

    int cores = Runtime.getRuntime().availableProcessors();
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(cores));
    SchemaSource schemas = SchemaSource.fixed(schema);
    GraphStore store = GraphStore.create(vertx, config.mysql(), watcher, schemas, Clock.systemUTC());
    int port = config.http().port() == 0 ? Ports.free() : config.http().port();
    Services services = new Services(config, store, schemas,
        () -> curator.getZookeeperClient().isConnected());
    vertx.deployVerticle(() -> new ApiVerticle(services, port), new DeploymentOptions().setInstances(cores))
        .await();
    log.info("Quiver serves HTTP on port {} over {} shards on {} hosts", port,
        watcher.current().allShards().size(), watcher.current().hosts().size());
    return new QuiverServer(vertx, curator, watcher, store, port);
  }

  public int port() {
    return port;
  }

  public GraphStore store() {
    return store;
  }

  @Override
  public void close() {
    vertx.close().await();
    watcher.close();
    curator.close();
  }
}
