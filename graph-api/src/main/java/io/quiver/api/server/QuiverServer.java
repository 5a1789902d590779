package io.quiver.api.server;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.http.RenderedJson;
import io.quiver.api.http.SlowClients;
import io.quiver.api.metrics.QuiverMetrics;
import io.quiver.cache.CacheInvalidations;
import io.quiver.cache.CachingGraphStore;
import io.quiver.core.GraphException;
import io.quiver.fleet.AdminService;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaWatcher;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.UnhandledErrors;
import io.quiver.store.shard.ShardMapWatcher;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A running Quiver server. {@link #start} connects to ZooKeeper, waits for the shard map and the
 * schema, opens the backend (one pool per MySQL host), puts the cache in front of it, joins the
 * invalidation channel between servers, and serves HTTP on one event loop per core;
 * {@link #close} undoes it in reverse order. A start that fails part-way closes what it had
 * started, as {@code DevStack} does.
 *
 * <p>Starting blocks the calling thread (it waits for ZooKeeper); call it from a main or
 * worker thread, never from an event loop.
 */
public final class QuiverServer implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(QuiverServer.class);
  /**
   * How long one step of stopping may take before the stop goes on without it: tidying ZooKeeper
   * (a peer registration, outbox leases) waits on retries while ZooKeeper is silent.
   */
  public static final Duration STEP_BOUND = Duration.ofSeconds(2);
  /**
   * How long stopping waits in all: steps still to run when it has passed are closed in order on a
   * thread of their own, not waited for. Two ZooKeeper steps each waiting out {@link #STEP_BOUND}
   * would otherwise add up with the third (closing the client) to 6 s.
   */
  public static final Duration STOP_BOUND = Duration.ofSeconds(3);
  /** How long start waits for ZooKeeper and the first shard map. */
  public static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  /** What a server started, in order; closed in reverse. */
  private final List<AutoCloseable> started;
  private final GraphBackend backend;
  private final AdminService admin;
  private final CachingGraphStore cache;
  private final int port;

  private QuiverServer(List<AutoCloseable> started, GraphBackend backend, AdminService admin, CachingGraphStore cache,
      int port) {
    this.started = started;
    this.backend = backend;
    this.admin = admin;
    this.cache = cache;
    this.port = port;
  }

  /**
   * Starts a server.
   *
   * @param seed types to define through the registry before serving (a schema file, or the dev
   *     stack's example); null to serve the registry as ZooKeeper holds it
   */
  public static QuiverServer start(QuiverConfig config, Schema seed) throws Exception {
    List<AutoCloseable> started = new ArrayList<>();
    try {
      return start(config, seed, started);
    } catch (Exception | Error e) {
      closeAll(started, e);
      throw e;
    }
  }

  private static QuiverServer start(QuiverConfig config, Schema seed, List<AutoCloseable> started) throws Exception {
    CuratorFramework curator = CuratorFrameworkFactory.builder()
        .connectString(config.zooKeeper().connect())
        .sessionTimeoutMs((int) config.zooKeeper().sessionTimeout().toMillis())
        .retryPolicy(new ExponentialBackoffRetry(200, 10, 5_000))
        .build();
    curator.start();
    started.add(curator);
    if (!curator.blockUntilConnected((int) config.zooKeeper().connectTimeout().toMillis(), TimeUnit.MILLISECONDS)) {
      throw GraphException.of(GraphException.Code.UNAVAILABLE, "cannot reach ZooKeeper at "
          + config.zooKeeper().connect() + " within " + config.zooKeeper().connectTimeout().toMillis()
          + " ms (zooKeeper.connectTimeoutMs)");
    }
    ShardMapWatcher watcher = new ShardMapWatcher(curator, config.zooKeeper().shardMapPath());
    started.add(watcher);
    watcher.start();
    watcher.awaitFirst(STARTUP_TIMEOUT);
    SchemaWatcher schemas = new SchemaWatcher(curator, config.zooKeeper().schemaPath());
    started.add(schemas);
    schemas.start();
    schemas.awaitInitialized(STARTUP_TIMEOUT);

    // Before anything drains: a fleet runs one source of its change log (ChangeSources says why).
    started.add(ChangeSources.join(curator, config.outbox().leasePath(), config.changeLog()));

    int cores = Runtime.getRuntime().availableProcessors();
    Vertx vertx = UnhandledErrors.install(Vertx.vertx(new VertxOptions().setEventLoopPoolSize(cores)));
    started.add(() -> vertx.close().await());
    GraphBackend backend = GraphStore.builder(vertx)
        .pools(config.mysql())
        .shardMaps(watcher)
        .schemas(schemas)
        .drainOutboxes(curator, config.outbox())
        .registry(curator, config.zooKeeper().shardMapPath(), config.zooKeeper().schemaPath())
        .replicaReads(config.replicaReads())
        .changeLog(config.changeLog())
        .readTokens(config.readTokens())
        .clock(Clock.systemUTC())
        .build();
    // The backend closes before Vert.x: its leases and pools go while the event loops still run.
    started.add(() -> backend.close().otherwiseEmpty().await());
    AdminService admin = AdminService.builder(vertx)
        .repairs(backend.repairs())
        .schemas(schemas)
        .shardMaps(watcher)
        .pools(config.mysql())
        .registry(curator, config.zooKeeper().shardMapPath(), config.zooKeeper().schemaPath())
        .replicaAcks(config.replication())
        .failover(config.failover())
        .changeLog(config.changeLog())
        .clock(Clock.systemUTC())
        .build();
    // Before the backend: a move this server runs stops at its next step while its pools still answer.
    started.add(admin);

    CachingGraphStore cache = null;
    GraphStore store = backend.store();
    if (config.cache().enabled()) {
      cache = CachingGraphStore.builder(backend.store(), backend.changes(), schemas)
          .settings(config.cache())
          .shardMaps(backend::shardMap)
          .invalidationsBetweenServers(vertx, curator, backend::committedElsewhere)
          .build();
      started.add(cache);
      store = cache;
    } else {
      // Without a cache this server still tells the others what it changed, and wakes its
      // drainers by what they changed.
      started.add(CacheInvalidations.join(vertx, curator, config.cache(), backend.changes(),
          backend::committedElsewhere));
    }

    if (seed != null) {
      admin.applySchema(seed).await();
    }
    Services services = new Services(config, store, backend, admin, schemas, new QuiverMetrics(backend.telemetry(), backend::shardMap, cache),
        () -> curator.getZookeeperClient().isConnected(), new SlowClients(vertx, config.http().headerTimeout()),
        new RenderedJson());
    int port = deploy(vertx, services, config.http().port(), cores);
    log.info("Quiver serves HTTP on port {} over {} shards on {} hosts, schema version {}", port,
        watcher.current().allShards().size(), watcher.current().hosts().size(), schemas.current().version());
    return new QuiverServer(started, backend, admin, cache, port);
  }

  /**
   * One HTTP server per event loop, all on one port. Port 0 asks for a free port the system
   * picks: Vert.x binds a negative port once, to a random port that every instance shares.
   */
  private static int deploy(Vertx vertx, Services services, int configured, int instances) {
    AtomicInteger bound = new AtomicInteger();
    int listenOn = configured == 0 ? -1 : configured;
    vertx.deployVerticle(() -> new ApiVerticle(services, listenOn, bound),
        new DeploymentOptions().setInstances(instances)).await();
    return bound.get();
  }

  public int port() {
    return port;
  }

  /** The graph operations this server serves (through its cache, when it has one). */
  public GraphStore store() {
    return cache != null ? cache : backend.store();
  }

  /** The server's cache; empty when it runs without one. */
  public java.util.Optional<CachingGraphStore> cache() {
    return java.util.Optional.ofNullable(cache);
  }

  public GraphBackend backend() {
    return backend;
  }

  /** This server's admin service: every change to the fleet, in process (what its admin API serves). */
  public AdminService admin() {
    return admin;
  }

  /**
   * Stops in reverse order of start, each step bounded by {@link #STEP_BOUND} and the whole by
   * {@link #STOP_BOUND}: with ZooKeeper unreachable, tidying it — deleting this server's peer
   * registration, leaving its outbox leases, closing the client's session — would wait on
   * Curator's retries without end, for nothing, since those ephemeral nodes go with the session.
   */
  @Override
  public void close() {
    closeAll(started, null);
  }

  private static void closeAll(List<AutoCloseable> started, Throwable failure) {
    List<AutoCloseable> steps = new ArrayList<>(started);
    Collections.reverse(steps);
    started.clear();
    long deadline = System.nanoTime() + STOP_BOUND.toNanos();
    for (int i = 0; i < steps.size(); i++) {
      long left = deadline - System.nanoTime();
      boolean last = left < TimeUnit.MILLISECONDS.toNanos(1);
      // Out of time: the steps left close in order on one thread of their own, not waited for.
      AutoCloseable step = last ? inOrder(steps.subList(i, steps.size())) : steps.get(i);
      Exception failed = closeWithin(step, Duration.ofNanos(Math.max(0, Math.min(STEP_BOUND.toNanos(), left))));
      if (failed != null) {
        if (failure != null) {
          failure.addSuppressed(failed);
        } else {
          log.warn("stopping the server", failed);
        }
      }
      if (last) {
        return;
      }
    }
  }

  /** One step that closes {@code steps} one after another, each tried even if one before it failed. */
  private static AutoCloseable inOrder(List<AutoCloseable> steps) {
    List<AutoCloseable> copy = List.copyOf(steps);
    return () -> {
      Exception first = null;
      for (AutoCloseable step : copy) {
        try {
          step.close();
        } catch (Exception e) {
          if (first == null) {
            first = e;
          } else {
            first.addSuppressed(e);
          }
        }
      }
      if (first != null) {
        throw first;
      }
    };
  }

  /**
   * Closes {@code step} on a thread of its own and waits for it at most {@code bound}: a step
   * that waits on a ZooKeeper gone silent (which the client takes seconds to notice) is left to
   * finish or fail by itself, and the stop goes on.
   */
  private static Exception closeWithin(AutoCloseable step, Duration bound) {
    java.util.concurrent.CompletableFuture<Exception> closed = new java.util.concurrent.CompletableFuture<>();
    Thread closing = new Thread(() -> {
      try {
        step.close();
        closed.complete(null);
      } catch (Exception e) {
        closed.complete(e);
      }
    }, "quiver-stop-step");
    closing.setDaemon(true);
    closing.start();
    try {
      return closed.get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (java.util.concurrent.TimeoutException e) {
      log.warn("a step of stopping ({}) took longer than {} ms; going on without it", step.getClass().getSimpleName(),
          bound.toMillis());
      closed.thenAccept(late -> {
        if (late != null) {
          log.warn("a step of stopping failed after the stop went on without it", late);
        }
      });
      return null;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return e;
    } catch (java.util.concurrent.ExecutionException e) {
      return e;
    }
  }
}
