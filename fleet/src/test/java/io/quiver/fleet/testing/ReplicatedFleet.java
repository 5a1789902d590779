package io.quiver.fleet.testing;

import io.quiver.core.testing.ExpectedLog;
import io.quiver.embedded.EmbeddedMariaDb;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.AdminServiceBuilder;
import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ApplierSettings;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.GraphStoreBuilder;
import io.quiver.store.ShardLayout;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardMapWatcher;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.function.BiFunction;
import java.util.function.UnaryOperator;

/**
 * A fleet for tests of replicas, on real MariaDB servers: host h1 on a server of its own with its
 * replicas on servers of their own (added through the admin service, seeded and confirming), host
 * h2 the test backend's second host; eight shards from {@code firstShard}, four on each; a shard
 * map of its own in ZooKeeper; a backend draining the outboxes and an admin service over it.
 * MariaDB's console lines while servers are killed, frozen and repointed on purpose are caught
 * (expected, {@link ExpectedLog}).
 */
public final class ReplicatedFleet implements AutoCloseable {
  public final EmbeddedMariaDb primary;
  /** The first of h1's shards; h1 holds it and the next three. */
  public final int firstShard;
  public final List<EmbeddedMariaDb> replicas = new ArrayList<>();
  public final String mapPath;
  public final Vertx vertx;
  public final ShardMapWatcher watcher;
  public final GraphBackend backend;
  public final AdminService admin;
  private final ExpectedLog consoles;

  /**
   * @param firstShard h1 holds it and the next three, h2 the four after
   * @param replicaCount replicas of h1, each on a server of its own
   * @param backend settings of the backend beyond the fleet's (replica reads, say)
   * @param admin settings of the admin service beyond the fleet's (failover, say), given the backend built
   */
  public ReplicatedFleet(int firstShard, int replicaCount, UnaryOperator<GraphStoreBuilder> backend,
      BiFunction<AdminServiceBuilder, GraphBackend, AdminServiceBuilder> admin) throws Exception {
    this(firstShard, replicaCount, ChangeLogSettings.defaults(), backend, admin);
  }

  /**
   * The same, its change log written as {@code changeLog} says. From the binary log, h1's primary
   * logs what it applies too (it may become a replica, in a switchover), and both hosts' tail
   * positions begin at the fleet's start: h2's server is shared with other tests, whose
   * transactions are none of this fleet's tailer's business. A fleet that fails to start stops
   * what it started: a backend left running would drain and tail h2's shards under the next test.
   */
  public ReplicatedFleet(int firstShard, int replicaCount, ChangeLogSettings changeLog,
      UnaryOperator<GraphStoreBuilder> backend, BiFunction<AdminServiceBuilder, GraphBackend, AdminServiceBuilder> admin)
      throws Exception {
    TestBackend hosts = TestBackend.get();
    consoles = ExpectedLog.named("ch.vorburger.exec");
    this.firstShard = firstShard;
    mapPath = "/quiver-test/replicated-" + System.nanoTime() + "/shard-map";
    List<Runnable> undo = new ArrayList<>();
    undo.add(consoles::close);
    try {
      primary = EmbeddedMariaDb.start(null, 0, changeLog.tailed() ? List.of("--log-slave-updates=ON") : List.of());
      undo.add(primary::close);
      for (int i = 0; i < replicaCount; i++) {
        EmbeddedMariaDb replica = EmbeddedMariaDb.start(null, 0, List.of("--log-slave-updates=ON"));
        undo.add(replica::close);
        replicas.add(replica);
      }
      ShardMap map = new ShardMap(1,
          Map.of("h1", new Host("h1", primary.address(), List.of()),
              "h2", new Host("h2", hosts.hosts().addresses().get(1), List.of())),
          List.of(new ShardRange(firstShard, firstShard + 3, "h1"),
              new ShardRange(firstShard + 4, firstShard + 7, "h2")),
          List.of(new ShardSpan(firstShard, firstShard + 7)), Map.of());
      hosts.provision(map, hosts.schema());
      if (changeLog.tailed()) {
        for (Host host : map.hosts().values()) {
          try (var connection = hosts.connect(host.primary())) {
            ShardProvisioner.run(connection, List.of(ShardLayout.tailPositionNow(host.name())));
          }
        }
      }
      new ShardMapStore(hosts.curator(), mapPath).publish(map);
      vertx = io.quiver.store.UnhandledErrors.install(Vertx.vertx());
      undo.add(() -> vertx.close().await());
      watcher = new ShardMapWatcher(hosts.curator(), mapPath);
      undo.add(watcher::close);
      watcher.start();
      watcher.awaitFirst(Duration.ofSeconds(10));
      SchemaSource schemas = SchemaSource.fixed(hosts.schema());
      ApplierSettings drain = TestBackend.applierSettings();
      this.backend = backend.apply(GraphStore.builder(vertx).pools(hosts.poolSettings()).shardMaps(watcher)
              .schemas(schemas).changeLog(changeLog)
              .drainOutboxes(hosts.curator(), drain.withLeasePath(mapPath + "-leases"))
              .registry(hosts.curator(), mapPath, TestBackend.SCHEMA_PATH))
          .build();
      undo.add(() -> this.backend.close().await());
      this.admin = admin.apply(AdminService.builder(vertx).repairs(this.backend.repairs()).schemas(schemas)
              .changeLog(changeLog)
              .shardMaps(watcher).pools(hosts.poolSettings()).registry(hosts.curator(), mapPath, TestBackend.SCHEMA_PATH),
          this.backend).build();
      undo.add(this.admin::close);
      for (EmbeddedMariaDb replica : replicas) {
        this.admin.addReplica("h1", replica.address(), line -> { }).await();
      }
    } catch (Exception | Error failed) {
      for (int i = undo.size() - 1; i >= 0; i--) {
        try {
          undo.get(i).run();
        } catch (RuntimeException alsoFailed) {
          failed.addSuppressed(alsoFailed);
        }
      }
      throw failed;
    }
  }

  /** Where the fleet's map and the paths beside it live in ZooKeeper (the served versions its fences read, say). */
  public GraphStoreBuilder.RegistryPaths paths() {
    return new GraphStoreBuilder.RegistryPaths(TestBackend.get().curator(), mapPath, TestBackend.SCHEMA_PATH);
  }

  /** The store of the fleet's backend. */
  public GraphStore store() {
    return backend.store();
  }

  /** A board titled {@code title} on one of h1's shards, where the replicas are (new nodes go to a random shard). */
  public io.quiver.store.Node boardOnH1(String title) {
    for (int attempt = 0; attempt < 100; attempt++) {
      io.quiver.store.Node board = store().createNode("board",
          com.fasterxml.jackson.databind.node.JsonNodeFactory.instance.objectNode().put("title", title), null).await();
      if (board.id().shard() <= firstShard + 3) {
        return board;
      }
    }
    throw new AssertionError("no board landed on h1 in 100 tries");
  }

  /** The first value {@code sql} answers on {@code server}, over the root account. */
  public static String single(EmbeddedMariaDb server, String sql) throws Exception {
    try (var connection = java.sql.DriverManager.getConnection("jdbc:mysql://" + server.address() + "/", "root", "");
        var statement = connection.createStatement(); var rows = statement.executeQuery(sql)) {
      rows.next();
      return rows.getString(1);
    }
  }

  /** Runs {@code sql} on {@code server}, over the root account. */
  public static void execute(EmbeddedMariaDb server, String sql) throws Exception {
    try (var connection = java.sql.DriverManager.getConnection("jdbc:mysql://" + server.address() + "/", "root", "");
        var statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  @Override
  public void close() {
    admin.close();
    backend.close().await();
    watcher.close();
    vertx.close().await();
    for (int i = replicas.size() - 1; i >= 0; i--) {
      replicas.get(i).close();
    }
    primary.close();
    consoles.close();
  }
}
