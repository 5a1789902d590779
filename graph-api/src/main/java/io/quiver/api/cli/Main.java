package io.quiver.api.cli;

import ch.qos.logback.classic.LoggerContext;
import io.quiver.api.config.QuiverConfig;
import io.quiver.api.server.QuiverServer;
import io.quiver.cache.CacheInvalidations;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaWatcher;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.ProvisionReport;
import io.quiver.store.RepairReport;
import io.quiver.store.UniqueRepairReport;
import io.quiver.store.shard.ShardMapWatcher;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;
import org.slf4j.LoggerFactory;

/**
 * The server and the operators' tools, over a configuration file:<br>
 * {@code quiver serve --config FILE [--port N]}: a server over real ZooKeeper and MySQL hosts.<br>
 * {@code quiver repair --config FILE --edge-type NAME}: find and fix inverse edges that are
 * missing or differ; running servers' caches are told of every fix.<br>
 * {@code quiver repair --config FILE --unique TYPE.FIELD}: restore a unique index's missing claims,
 * remove orphaned ones, list values held twice, and activate an index still building.<br>
 * {@code quiver provision --config FILE}: create the shard databases and the tables of the
 * registry's types (after opening new shards; a type defined through the registry is provisioned
 * as it is defined).<br>
 * {@code quiver import FILE [--name NAME] [--server URL]}: a bulk import into a running server,
 * with a progress bar ({@link ImportCommand}).<br>
 * The tools take the same path as the HTTP admin calls: the backend's admin service.
 */
public final class Main {
  static final String USAGE = """
      usage: quiver serve --config FILE [--port N]
             quiver provision --config FILE
             quiver repair --config FILE --edge-type NAME
             quiver repair --config FILE --unique TYPE.FIELD
             quiver example board-page [--server URL]   (default http://localhost:8080)
             quiver import FILE [--name NAME] [--server URL]   (default http://localhost:8080)
      """;

  private Main() {}

  /** A command line that cannot be run as given: its message, and the exit status. */
  public static final class UsageException extends RuntimeException {
    public UsageException(String message) {
      super(message, null, false, false);
    }
  }

  public static void main(String[] args) {
    runOrExit(() -> run(args), USAGE);
  }

  /** A command of a process's main. */
  @FunctionalInterface
  public interface Command {
    void run() throws Exception;
  }

  /**
   * Runs a main's command; a usage error exits with status 2 after the usage text, any other
   * failure with status 1.
   */
  public static void runOrExit(Command command, String usage) {
    try {
      command.run();
    } catch (UsageException e) {
      System.err.println("quiver: " + e.getMessage());
      System.err.print(usage);
      System.exit(2);
    } catch (Exception e) {
      // One line for a person; the trace only when asked for (QUIVER_DEBUG=1).
      System.err.println("quiver: " + (e.getMessage() != null ? e.getMessage() : e.getClass().getSimpleName()));
      if ("1".equals(System.getenv("QUIVER_DEBUG"))) {
        e.printStackTrace();
      }
      // Threads a half-started stack left behind must not keep the process alive.
      System.exit(1);
    }
  }

  /** Runs one command in this process; for {@code serve}, until the process is asked to stop. */
  public static void run(String... args) throws Exception {
    if (args.length == 0) {
      throw new UsageException("no command given");
    }
    List<String> options = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
    switch (args[0]) {
      case "serve" -> serve(options);
      case "provision" -> provision(options);
      case "repair" -> repair(options);
      case "example" -> example(options);
      case "import" -> {
        int status = ImportCommand.run(options, System.out);
        if (status != 0) {
          System.exit(status);
        }
      }
      case "help", "--help", "-h" -> System.out.print(USAGE);
      default -> throw new UsageException("unknown command '" + args[0] + "'");
    }
  }

  private static void serve(List<String> options) throws Exception {
    QuiverConfig config = QuiverConfig.load(Path.of(required(options, "--config")));
    String port = option(options, "--port", null);
    requireNoMore(options);
    if (port != null) {
      config = config.withPort(Integer.parseInt(port));
    }
    QuiverServer server = QuiverServer.start(config,
        config.schemaFile() == null ? null : SchemaJson.parse(Files.readString(config.schemaFile())));
    awaitShutdown(server::close);
  }

  private static void provision(List<String> options) throws Exception {
    QuiverConfig config = QuiverConfig.load(Path.of(required(options, "--config")));
    requireNoMore(options);
    ProvisionReport report = withBackend(config, backend -> backend.admin().provision().await());
    System.out.printf("%d shards: %d databases and %d tables created%n",
        report.shards(), report.databasesCreated(), report.tablesCreated());
  }

  /**
   * FriendFeed's Cleaner from the command line — of an edge type's inverses, or of a unique
   * field's index ({@code --unique TYPE.FIELD}) — progress as it goes, then the summary.
   */
  private static void repair(List<String> options) throws Exception {
    QuiverConfig config = QuiverConfig.load(Path.of(required(options, "--config")));
    String unique = option(options, "--unique", null);
    if (unique != null) {
      repairUnique(config, unique, options);
      return;
    }
    String edgeType = required(options, "--edge-type");
    requireNoMore(options);
    RepairReport report = withBackend(config,
        backend -> backend.admin().repair(edgeType, System.out::println).await());
    System.out.printf("repair of %s: %d rows scanned, %d missing inverses, %d differing pairs,"
            + " %d orphaned inverses, %d pairs in flight (left to their outbox entries), %d copies fixed%n",
        report.edgeType(), report.scanned(),
        report.missingInverse(), report.differing(), report.orphanedInverse(), report.inFlight(), report.fixed());
  }

  private static void repairUnique(QuiverConfig config, String typeAndField, List<String> options) throws Exception {
    requireNoMore(options);
    int dot = typeAndField.indexOf('.');
    if (dot <= 0 || dot == typeAndField.length() - 1) {
      throw new UsageException("--unique takes TYPE.FIELD, as user.username");
    }
    String type = typeAndField.substring(0, dot);
    String field = typeAndField.substring(dot + 1);
    UniqueRepairReport report = withBackend(config,
        backend -> backend.admin().repairUnique(type, field, System.out::println).await());
    System.out.printf("repair of %s.%s: %d nodes and %d claims scanned, %d claims restored, %d orphaned claims"
            + " removed, %d in flight (younger than the lease), %d values held twice; the index is %s%n",
        report.type(), report.field(), report.nodesScanned(), report.claimsScanned(), report.claimsRestored(),
        report.orphansRemoved(), report.inFlight(), report.duplicates().size(), report.active() ? "active" : "building");
    report.duplicates().forEach(duplicate ->
        System.out.printf("  %s is held by %s%n", duplicate.value(), String.join(", ", duplicate.nodes())));
    if (!report.duplicates().isEmpty()) {
      System.exit(3);
    }
  }

  private interface BackendWork<T> {
    T run(GraphBackend backend) throws Exception;
  }

  /**
   * Runs work on a backend of this process's own — no outbox draining — that joins the cache
   * invalidation channel, so that every change it commits reaches the running servers' caches.
   */
  private static <T> T withBackend(QuiverConfig config, BackendWork<T> work) throws Exception {
    Vertx vertx = Vertx.vertx();
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(
            config.zooKeeper().connect(), new ExponentialBackoffRetry(200, 10));
        ShardMapWatcher maps = new ShardMapWatcher(curator, config.zooKeeper().shardMapPath());
        SchemaWatcher schemas = new SchemaWatcher(curator, config.zooKeeper().schemaPath())) {
      curator.start();
      maps.start();
      schemas.start();
      maps.awaitFirst(QuiverServer.STARTUP_TIMEOUT);
      schemas.awaitInitialized(QuiverServer.STARTUP_TIMEOUT);
      GraphBackend backend = GraphStore.builder(vertx).pools(config.mysql()).shardMaps(maps).schemas(schemas)
          .registry(curator, config.zooKeeper().shardMapPath(), config.zooKeeper().schemaPath())
          .build();
      try (CacheInvalidations announced = CacheInvalidations.join(vertx, curator, config.cache(), backend.changes(),
          CacheInvalidations.Receiver.NONE)) {
        return work.run(backend);
      } finally {
        backend.close().await();
      }
    } finally {
      vertx.close().await();
    }
  }

  /** The Java client's examples, against a running server (by default ./quiver dev's). */
  private static void example(List<String> options) {
    if (options.isEmpty() || !options.get(0).equals("board-page")) {
      throw new UsageException("the examples are: board-page");
    }
    options.remove(0);
    String server = option(options, "--server", null);
    if (server == null && !options.isEmpty() && !options.get(0).startsWith("--")) {
      server = options.remove(0);
    }
    requireNoMore(options);
    io.quiver.client.example.BoardPage.main(server == null ? new String[0] : new String[] {server});
  }

  /** How long stopping may take before the process exits anyway (ZooKeeper away, a host frozen). */
  public static final Duration STOP_BOUND = Duration.ofSeconds(10);

  /**
   * Blocks until the process is asked to stop, then runs {@code stop} — for at most
   * {@link #STOP_BOUND}: what could not close by then (a lease or registration in a ZooKeeper that
   * is away, which expires with the session anyway) is left — then lets the logging queue drain
   * (lines are written by a thread of their own) before saying it is done.
   */
  public static void awaitShutdown(Runnable stop) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("stopping Quiver…");
      Thread stopping = new Thread(stop, "quiver-stop");
      stopping.setDaemon(true);
      stopping.start();
      try {
        stopping.join(STOP_BOUND.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
      if (stopping.isAlive()) {
        System.out.println("stopping took longer than " + STOP_BOUND.toSeconds() + " s; exiting anyway");
      }
      if (LoggerFactory.getILoggerFactory() instanceof LoggerContext logging) {
        logging.stop();
      }
      System.out.println("Quiver stopped");
      stopped.countDown();
    }, "quiver-shutdown"));
    stopped.await();
  }

  /** Takes {@code name}'s value out of the options, or answers the fallback. */
  public static String option(List<String> options, String name, String fallback) {
    int at = options.indexOf(name);
    if (at < 0) {
      return fallback;
    }
    if (at + 1 >= options.size()) {
      throw new UsageException(name + " needs a value");
    }
    String value = options.get(at + 1);
    options.remove(at + 1);
    options.remove(at);
    return value;
  }

  private static String required(List<String> options, String name) {
    String value = option(options, name, null);
    if (value == null) {
      throw new UsageException(name + " is required");
    }
    return value;
  }

  public static void requireNoMore(List<String> options) {
    if (!options.isEmpty()) {
      throw new UsageException("unexpected arguments " + options);
    }
  }
}
