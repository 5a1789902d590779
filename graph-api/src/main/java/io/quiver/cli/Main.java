package io.quiver.cli;

import io.quiver.config.QuiverConfig;
import io.quiver.dev.DevStack;
import io.quiver.provision.ShardProvisioner;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaStore;
import io.quiver.outbox.RepairReport;
import io.quiver.schema.SchemaWatcher;
import io.quiver.server.QuiverServer;
import io.quiver.shard.ShardMapWatcher;
import io.quiver.store.GraphStore;
import io.vertx.core.Vertx;
import io.quiver.shard.ShardMapStore;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.CuratorFrameworkFactory;
import org.apache.curator.retry.ExponentialBackoffRetry;

/**
 * {@code quiver dev [--port N] [--data DIR]}: the embedded stack and a server over it.<br>
 * {@code quiver serve --config FILE [--port N]}: a server over real ZooKeeper and MySQL hosts.<br>
 * {@code quiver repair --config FILE --edge-type NAME}: find and fix inverse edges that are missing
 * or differ.<br>
 * {@code quiver provision --config FILE}: create the shard databases and the tables of the
 * registry's types (after opening new shards; a type defined through the registry is provisioned
 * as it is defined).
 */
public final class Main {
  private static final String USAGE = """
      usage: quiver dev [--port N] [--data DIR]
             quiver serve --config FILE [--port N]
             quiver provision --config FILE
             quiver repair --config FILE --edge-type NAME
             quiver example board-page [URL]
      """;

  private Main() {}

  public static void main(String[] args) {
    try {
      run(args);
    } catch (Exception e) {
      System.err.println("quiver: " + e.getMessage());
      e.printStackTrace();
      // Threads a half-started stack left behind must not keep the process alive.
      System.exit(1);
    }
  }

  private static void run(String[] args) throws Exception {
    if (args.length == 0) {
      fail("no command given");
    }
    List<String> options = new ArrayList<>(Arrays.asList(args).subList(1, args.length));
    switch (args[0]) {
      case "dev" -> dev(options);
      case "serve" -> serve(options);
      case "provision" -> provision(options);
      case "repair" -> repair(options);
      case "example" -> example(options);
      case "help", "--help", "-h" -> System.out.print(USAGE);
      default -> fail("unknown command '" + args[0] + "'");
    }
  }

  private static void dev(List<String> options) throws Exception {
    int port = Integer.parseInt(option(options, "--port", "8080"));
    Path data = Path.of(option(options, "--data", "var"));
    requireNoMore(options);
    DevStack stack = DevStack.start(data);
    QuiverServer server;
    try {
      server = QuiverServer.start(stack.config(port), stack.schema());
    } catch (Exception e) {
      stack.close();
      throw e;
    }
    System.out.printf("%nQuiver is serving on http://localhost:%d  (data in %s; Ctrl-C stops)%n"
            + "admin token for this run: %s%n"
            + "ZooKeeper for command-line tools: %s%n%n",
        server.port(), data.toAbsolutePath(), stack.adminToken(), stack.config(port).zooKeeper().connect());
    awaitShutdown(() -> {
      server.close();
      stack.close();
    });
  }

  private static void serve(List<String> options) throws Exception {
    QuiverConfig config = QuiverConfig.load(Path.of(required(options, "--config")));
    String port = option(options, "--port", null);
    requireNoMore(options);
    if (port != null) {
      config = config.withPort(Integer.parseInt(port));
    }
    QuiverServer server = QuiverServer.start(config, config.schemaFile() == null ? null : schemaOf(config));
    awaitShutdown(server::close);
  }

  private static void provision(List<String> options) throws Exception {
    QuiverConfig config = QuiverConfig.load(Path.of(required(options, "--config")));
    requireNoMore(options);
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(
        config.zooKeeper().connect(), new ExponentialBackoffRetry(200, 10))) {
      curator.start();
      curator.blockUntilConnected();
      var map = new ShardMapStore(curator, config.zooKeeper().shardMapPath()).read()
          .orElseThrow(() -> new IllegalStateException("no shard map at " + config.zooKeeper().shardMapPath()));
      Schema schema = new SchemaStore(curator, config.zooKeeper().schemaPath()).read().orElse(Schema.empty());
      var report = new ShardProvisioner(config.mysql().user(), config.mysql().password()).provision(map, schema);
      System.out.printf("%d shards: %d databases and %d tables created%n",
          report.shards(), report.databasesCreated(), report.tablesCreated());
    }
  }

  /** The Java client's examples, against a running server (by default ./quiver dev's). */
  private static void example(List<String> options) {
    if (options.isEmpty() || !options.get(0).equals("board-page")) {
      fail("the examples are: board-page");
    }
    io.quiver.example.BoardPage.main(options.subList(1, options.size()).toArray(new String[0]));
  }

  /** FriendFeed's Cleaner from the command line: progress as it goes, then the summary. */
  private static void repair(List<String> options) throws Exception {
    QuiverConfig config = QuiverConfig.load(Path.of(required(options, "--config")));
    String edgeType = required(options, "--edge-type");
    requireNoMore(options);
    Vertx vertx = Vertx.vertx();
    try (CuratorFramework curator = CuratorFrameworkFactory.newClient(
            config.zooKeeper().connect(), new ExponentialBackoffRetry(200, 10));
        ShardMapWatcher maps = new ShardMapWatcher(curator, config.zooKeeper().shardMapPath());
        SchemaWatcher schemas = new SchemaWatcher(curator, config.zooKeeper().schemaPath())) {
      curator.start();
      maps.start();
      schemas.start();
      maps.awaitFirst(QuiverServer.STARTUP_TIMEOUT);
      schemas.awaitFirst(QuiverServer.STARTUP_TIMEOUT);
      GraphStore store = GraphStore.builder(vertx).pools(config.mysql()).shardMaps(maps).schemas(schemas).build();
      try {
        RepairReport report = store.repair(edgeType, System.out::println).await();
        System.out.printf("repair of %s: %d rows scanned, %d missing inverses, %d differing pairs,"
                + " %d orphaned inverses, %d copies fixed%n", report.edgeType(), report.scanned(),
            report.missingInverse(), report.differing(), report.orphanedInverse(), report.fixed());
      } finally {
        store.close().await();
      }
    } finally {
      vertx.close().await();
    }
  }

  private static Schema schemaOf(QuiverConfig config) throws Exception {
    if (config.schemaFile() == null) {
      throw new IllegalArgumentException("the configuration names no schemaFile");
    }
    return SchemaJson.parse(Files.readString(config.schemaFile()));
  }

  private static void awaitShutdown(Runnable stop) throws InterruptedException {
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      System.out.println("stopping Quiver…");
      stop.run();
      stopped.countDown();
    }, "quiver-shutdown"));
    stopped.await();
  }

  private static String option(List<String> options, String name, String fallback) {
    int at = options.indexOf(name);
    if (at < 0) {
      return fallback;
    }
    if (at + 1 >= options.size()) {
      fail(name + " needs a value");
    }
    String value = options.get(at + 1);
    options.remove(at + 1);
    options.remove(at);
    return value;
  }

  private static String required(List<String> options, String name) {
    String value = option(options, name, null);
    if (value == null) {
      fail(name + " is required");
    }
    return value;
  }

  private static void requireNoMore(List<String> options) {
    if (!options.isEmpty()) {
      fail("unexpected arguments " + options);
    }
  }

  private static void fail(String message) {
    System.err.println("quiver: " + message);
    System.err.print(USAGE);
    System.exit(2);
  }
}
