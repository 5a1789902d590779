package io.quiver.api.cli;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.server.QuiverServer;
import io.quiver.cache.CacheInvalidations;
import io.quiver.fleet.AdminService;
import io.quiver.schema.SchemaWatcher;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.shard.ShardMapWatcher;
import io.vertx.core.Vertx;
import java.nio.file.Path;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * A fleet reached through its configuration file ({@code --config FILE}): the tools that work in
 * this process — provisioning, and a repair run without a server — rather than through a server's
 * admin API. They get the same {@link AdminService} a server's admin API is, so a command's work
 * is written once, whichever way it reaches the fleet.
 */
final class LocalFleet {
  private final Path config;

  LocalFleet(Path config) {
    this.config = config;
  }

  /** Work done with a fleet's admin service. */
  interface AdminWork<T> {
    T run(AdminService admin) throws Exception;
  }

  /**
   * Runs work on a backend of this process's own — no outbox draining — that joins the cache
   * invalidation channel, so that every change it commits reaches the running servers' caches.
   */
  <T> T withAdmin(AdminWork<T> work) throws Exception {
    QuiverConfig settings = QuiverConfig.load(config);
    Vertx vertx = Vertx.vertx();
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(
            settings.zooKeeper().connect(), new ExponentialBackoffRetry(200, 10));
        ShardMapWatcher maps = new ShardMapWatcher(curator, settings.zooKeeper().shardMapPath());
        SchemaWatcher schemas = new SchemaWatcher(curator, settings.zooKeeper().schemaPath())) {
      curator.start();
      maps.start();
      schemas.start();
      maps.awaitFirst(QuiverServer.STARTUP_TIMEOUT);
      schemas.awaitInitialized(QuiverServer.STARTUP_TIMEOUT);
      GraphBackend backend = GraphStore.builder(vertx).pools(settings.mysql()).shardMaps(maps).schemas(schemas)
          .registry(curator, settings.zooKeeper().shardMapPath(), settings.zooKeeper().schemaPath())
          .build();
      try (CacheInvalidations announced = CacheInvalidations.join(vertx, curator, settings.cache(), backend.changes(),
          CacheInvalidations.Receiver.NONE);
          AdminService admin = AdminService.builder(vertx).repairs(backend.repairs()).schemas(schemas).shardMaps(maps)
              .pools(settings.mysql())
              .registry(curator, settings.zooKeeper().shardMapPath(), settings.zooKeeper().schemaPath())
              .replicaAcks(settings.replication())
              .build()) {
        return work.run(admin);
      } finally {
        backend.close().await();
      }
    } finally {
      vertx.close().await();
    }
  }
}
