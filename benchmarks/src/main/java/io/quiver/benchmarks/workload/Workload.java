package io.quiver.benchmarks.workload;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.server.QuiverServer;
import io.quiver.benchmarks.CpuTime;
import io.quiver.cache.CacheFigures;
import io.quiver.cache.CacheSettings;
import io.quiver.cache.CachingGraphStore;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapJson;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.Random;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The end-to-end benchmark on one machine: starts the embedded stack, a Quiver server with its
 * cache and one without, a thin HTTP service over hand-written JDBC and a bare Vert.x endpoint,
 * loads a power-law graph (the primer), then for every concurrency level runs the chosen mix
 * against each target — those four, and hand-written JDBC in the generator's process — each after
 * a warm-up.
 *
 * <p>The load generator runs in a JVM of its own ({@link Generator}, {@link GeneratorProcess}):
 * on two cores it shares the CPU with what it measures, so its cost is kept low (two event loops,
 * the serial collector) and measured apart — the report gives, per target, the CPU per operation
 * of MariaDB, of this JVM (the servers) and of the generator, and the generator's share of the
 * machine. After each Quiver phase it checks that the requests the generator counted equal those
 * the server counted in its own {@code /metrics}, waits for the outboxes to drain (the sustained
 * rate counts the drain), prints the report and writes it as JSON.
 *
 * <p>{@code ./bench workload --quick}
 */
public final class Workload {
  private static final Pattern REQUEST_COUNT =
      Pattern.compile("^quiver_requests_seconds_count\\{operation=\"(\\w+)\",status=\"\\d+\"} ([0-9.E]+)$");
  /**
   * Every target's clients share the two hosts, as no deployment would: the JDBC baselines alone
   * hold a connection per caller and host, each caching about fifty server-side statements (one per
   * statement shape and shard), so at 128 callers the two of them kept about 13,000 prepared
   * statements per host, and with Quiver's own MariaDB's default cap (16,382) refused more
   * (error 1461) and the LinkBench run failed. The cap is raised for the benchmark's hosts only.
   */
  static final String PREPARED_STATEMENTS_PER_HOST = "--max-prepared-stmt-count=131072";

  private Workload() {}

  public static void main(String[] args) throws Exception {
    WorkloadOptions options;
    try {
      options = WorkloadOptions.parse(args);
    } catch (RuntimeException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    Report report = run(options);
    System.out.println(report.table());
    System.out.println("report written to " + options.output().toAbsolutePath());
    System.exit(0);
  }

  /** Runs the whole benchmark and writes its report; answers the report. */
  static Report run(WorkloadOptions options) throws Exception {
    long started = System.nanoTime();
    Path data = options.output().toAbsolutePath().getParent().resolve("workload-data-" + System.currentTimeMillis());
    Report report = new Report(options.rate());
    Vertx vertx = Vertx.vertx();
    List<String> hostOptions = new ArrayList<>(List.of(PREPARED_STATEMENTS_PER_HOST));
    if (options.bufferPoolMb() != null) {
      hostOptions.add("--innodb-buffer-pool-size=" + options.bufferPoolMb() + "M");
    }
    try (DevStack stack = DevStack.start(data, DevStack.MIN_HOSTS, hostOptions)) {
      QuiverConfig cached = stack.config(Ports.free());
      QuiverConfig uncached = new QuiverConfig(new QuiverConfig.Http(Ports.free(), cached.http().bodyLimitBytes()),
          cached.zooKeeper(), cached.mysql(), cached.outbox(), cached.cache().disabled(), null, cached.adminToken());
      QuiverServer bounded = null;
      try (QuiverServer quiver = QuiverServer.start(cached, stack.schema());
          QuiverServer quiverNoCache = QuiverServer.start(uncached, null)) {
        Graph graph = load(vertx, quiver.port(), options.nodes());
        awaitOutboxesDrained(quiver, quiverNoCache);
        System.out.println("primer: every inverse edge written");
        int maxConcurrency = Collections.max(options.concurrency());
        ShardMap map = quiver.backend().shardMap();
        int jdbcHttpPort = Ports.free();
        int barePort = Ports.free();
        try (JdbcHttpServer jdbcHttp = new JdbcHttpServer(jdbcHttpPort, map, stack.schema(), maxConcurrency);
            BareServer bare = new BareServer(barePort)) {
          List<GeneratorSetup.TargetSpec> targets = new ArrayList<>(List.of(
              GeneratorSetup.TargetSpec.api("quiver", quiver.port()),
              GeneratorSetup.TargetSpec.api("quiver-nocache", quiverNoCache.port()),
              GeneratorSetup.TargetSpec.api("jdbc-http", jdbcHttpPort),
              new GeneratorSetup.TargetSpec("jdbc", "jdbc", 0, false),
              new GeneratorSetup.TargetSpec("bare-vertx", "bare", barePort, false)));
          Map<String, QuiverServer> servers = new HashMap<>(Map.of("quiver", quiver, "quiver-nocache", quiverNoCache));
          if (options.cacheFraction() != null) {
            bounded = QuiverServer.start(boundedCache(vertx, quiver, cached, graph, options.cacheFraction()), null);
            String name = "quiver-" + Math.round(options.cacheFraction() * 100) + "pct";
            targets.add(new GeneratorSetup.TargetSpec(name, "api", bounded.port(), true));
            servers.put(name, bounded);
          }
          GeneratorSetup setup = new GeneratorSetup(options.mix().label(), graph.nodes, graph.knownEdges(), targets,
              ShardMapJson.write(map), maxConcurrency);
          WebClient metrics = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1"));
          Random shuffle = new Random(SHUFFLE_SEED);
          try (Generator generator = new Generator(setup, data)) {
            for (int round = 1; round <= options.runs(); round++) {
              // One run keeps the listed order; several shuffle it, so no target always goes first (cold JIT) or last.
              List<GeneratorSetup.TargetSpec> order = new ArrayList<>(targets);
              if (options.runs() > 1) {
                Collections.shuffle(order, shuffle);
              }
              System.out.printf("run %d of %d: %s%n", round, options.runs(),
                  order.stream().map(GeneratorSetup.TargetSpec::name).toList());
              for (int concurrency : options.concurrency()) {
                for (GeneratorSetup.TargetSpec target : order) {
                  run(generator, target, concurrency, round, options, report, metrics, map,
                      servers.get(target.name()), servers.values());
                }
              }
            }
            report.note(HostStatus.preparedStatements(map));
          }
        }
        report.note(String.format("mix: %s; primer: %d nodes loaded with power-law out-degrees; whole run %.0f s on %d"
                + " cores; the load generator runs in a JVM of its own, and it, every server and both MariaDB hosts"
                + " share this machine; access logging is off%s.",
            options.mix().label(), options.nodes(), (System.nanoTime() - started) / 1e9,
            Runtime.getRuntime().availableProcessors(), options.bufferPoolMb() == null ? ""
                : "; each host's InnoDB buffer pool " + options.bufferPoolMb() + " MiB, data "
                    + HostStatus.dataBytes(quiver.backend().shardMap()) / (1 << 20) + " MiB"));
        report.write(options.output(), options);
      } finally {
        if (bounded != null) {
          bounded.close();
        }
      }
    } finally {
      vertx.close().await();
    }
    return report;
  }

  /**
   * The configuration of a server whose caches hold {@code fraction} of the data: every node and
   * edge list read once through the cached server, its caches' bytes per entry scaled to the whole
   * graph, and that fraction of it.
   */
  private static QuiverConfig boundedCache(Vertx vertx, QuiverServer quiver, QuiverConfig cached, Graph graph,
      double fraction) {
    WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
        .setDefaultPort(quiver.port()));
    for (long node : graph.nodes) {
      client.get("/v1/nodes/" + node).send().await();
      client.get("/v1/nodes/" + node + "/edges/follows?limit=50").send().await();
    }
    client.close();
    long[] bytes = new long[2];
    for (CacheFigures figures : quiver.cache().orElseThrow().figures()) {
      long whole = figures.entries() == 0 ? 0 : figures.weightBytes() * graph.nodes.size() / figures.entries();
      if (figures.cache().equals("nodes")) {
        bytes[0] = Math.max(1, Math.round(whole * fraction));
      } else if (figures.cache().equals("edge_windows")) {
        // The edge budget is split half and half between windows and single edges.
        bytes[1] = Math.max(2, Math.round(whole * fraction) * 2);
      }
    }
    CacheSettings full = cached.cache();
    CacheSettings bounded = new CacheSettings(true, bytes[0], full.edgeWindow(), bytes[1], full.valueTtl(),
        full.peersPath(), full.advertiseHost(), full.staleBound());
    System.out.printf("a server whose caches hold %.0f %% of the data: %d bytes of nodes, %d bytes of edge lists%n",
        fraction * 100, bytes[0], bytes[1]);
    return new QuiverConfig(new QuiverConfig.Http(Ports.free(), cached.http().bodyLimitBytes()), cached.zooKeeper(),
        cached.mysql(), cached.outbox(), bounded, null, cached.adminToken());
  }

  /** Seeds the shuffles, so that a run's target orders can be repeated. */
  private static final long SHUFFLE_SEED = 20261122;

  private static void run(Generator generator, GeneratorSetup.TargetSpec target, int concurrency, int round,
      WorkloadOptions options, Report report, WebClient metrics, ShardMap map, QuiverServer server,
      Collection<QuiverServer> drainers) throws Exception {
    System.out.printf("%s, %d callers: warming up %d s, measuring %d s%n", target.name(), concurrency,
        options.warmup().toSeconds(), options.measure().toSeconds());
    generator.phase(target.name(), concurrency, options.rate(), options.warmup(), false);
    awaitOutboxesDrained(drainers.toArray(new QuiverServer[0]));
    Integer serverPort = server == null ? null : server.port();
    Map<String, Double> before = serverPort == null ? Map.of() : requestCounts(metrics, serverPort);
    List<CacheFigures> cacheBefore = server == null ? List.of() : server.cache().map(CachingGraphStore::figures)
        .orElse(List.of());
    HostStatus.InnoDbIo ioBefore = HostStatus.innoDbIo(map);
    double databaseCpu = CpuTime.mariaDbProcesses();
    double processCpu = CpuTime.thisProcess();
    Generator.Phase phase = generator.phase(target.name(), concurrency, options.rate(), options.measure(), true);
    Recording recording = phase.recording();
    double seconds = phase.seconds();
    long measured = Math.max(1, recording.all().getTotalCount());
    Report.Cpu cpu = new Report.Cpu((CpuTime.mariaDbProcesses() - databaseCpu) * 1000 / measured,
        (CpuTime.thisProcess() - processCpu) * 1000 / measured, phase.cpuSeconds() * 1000 / measured,
        phase.cpuSeconds() / (seconds * Runtime.getRuntime().availableProcessors()));
    Report.Disk disk = HostStatus.innoDbIo(map).perOperation(ioBefore, measured);
    String run = options.runs() > 1 ? ", run " + round : "";
    report.note(String.format(Locale.ROOT, "%s, %d callers%s: CPU per operation: MariaDB %.3f ms, the servers' JVM"
        + " %.3f ms, the load generator %.3f ms (%.0f %% of the machine's CPU); InnoDB per operation: %.3f pages read"
        + " from disk, %.3f fsyncs", target.name(), concurrency, run, cpu.database(), cpu.servers(), cpu.generator(),
        cpu.generatorShare() * 100, disk.pageReads(), disk.fsyncs()));
    if (server == null) {
      report.add(new Report.Measured(target.name(), concurrency, round, seconds, recording, null, cpu, disk));
      return;
    }
    List<CacheFigures> cacheAfter = server.cache().map(CachingGraphStore::figures).orElse(List.of());
    report.note(compareCounts(target.name(), concurrency, recording, before, requestCounts(metrics, serverPort)));
    double drainSeconds = awaitOutboxesDrained(drainers.toArray(new QuiverServer[0]));
    long operations = recording.all().getTotalCount();
    double sustained = operations / (seconds + drainSeconds);
    report.add(new Report.Measured(target.name(), concurrency, round, seconds, recording, sustained, cpu, disk));
    StringBuilder note = new StringBuilder(String.format(Locale.ROOT,
        "%s, %d callers%s: outboxes drained %.1f s after the phase; sustained %.0f ops/s (operations over the phase"
            + " and the drain)", target.name(), concurrency, run, drainSeconds, sustained));
    for (int i = 0; i < cacheAfter.size(); i++) {
      CacheFigures after = cacheAfter.get(i);
      CacheFigures earlier = cacheBefore.get(i);
      long hits = after.hits() - earlier.hits();
      long lookups = hits + after.misses() - earlier.misses();
      note.append(String.format(Locale.ROOT, "; %s hit ratio %.3f (%d lookups)", after.cache(),
          lookups == 0 ? 0.0 : (double) hits / lookups, lookups));
      if (target.traced() && after.cache().equals("nodes")) {
        int capacity = (int) Math.max(1, after.entries());
        Generator.Bounds bounds = generator.bounds(target.name(), capacity);
        note.append(String.format(Locale.ROOT, "; for this trace at %d entries: the best fixed cache (its %d most"
            + " read nodes pinned, the optimum without knowing the future) %.3f, Belady's MIN (knowing it) %.3f, over %d"
            + " traced node reads", capacity, capacity, bounds.pinned(), bounds.best(), bounds.lookups()));
      }
    }
    report.note(note.append('.').toString());
  }

  /**
   * Waits until no outbox holds an entry, and answers how long that took: measurement starts with
   * empty outboxes, so no target pays for another's inverse edges, and a phase's sustained rate
   * counts the drain of what it wrote.
   */
  private static double awaitOutboxesDrained(QuiverServer... servers) throws InterruptedException {
    long started = System.nanoTime();
    long deadline = started + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      long pending = 0;
      int hosts = 0;
      for (QuiverServer server : servers) {
        for (var stats : server.backend().telemetry().outboxStats().await().values()) {
          pending += stats.pending();
          hosts++;
        }
      }
      if (hosts >= 2 && pending == 0) {
        return (System.nanoTime() - started) / 1e9;
      }
      Thread.sleep(50);
    }
    System.out.println("outboxes not drained after 2 minutes; measuring anyway");
    return (System.nanoTime() - started) / 1e9;
  }

  /** The driver's count per API operation against the server's own, over the measured phase. */
  private static String compareCounts(String target, int concurrency, Recording recording, Map<String, Double> before,
      Map<String, Double> after) {
    Map<String, Long> driver = new HashMap<>();
    for (Operation operation : Operation.values()) {
      driver.merge(operation.apiOperation, recording.count(operation), Long::sum);
    }
    List<String> differences = new ArrayList<>();
    driver.forEach((operation, counted) -> {
      long served = Math.round(after.getOrDefault(operation, 0.0) - before.getOrDefault(operation, 0.0));
      if (served != counted) {
        differences.add(operation + ": driver " + counted + ", server " + served);
      }
    });
    return differences.isEmpty()
        ? String.format("%s, %d callers: the driver's counts per operation equal the server's /metrics.", target, concurrency)
        : String.format("%s, %d callers: COUNTS DIFFER: %s", target, concurrency, differences);
  }

  private static Map<String, Double> requestCounts(WebClient metrics, int port) {
    String text = metrics.request(HttpMethod.GET, port, "127.0.0.1", "/metrics").send().await().bodyAsString();
    Map<String, Double> counts = new HashMap<>();
    for (String line : text.split("\n")) {
      Matcher matcher = REQUEST_COUNT.matcher(line.trim());
      if (matcher.matches()) {
        counts.merge(matcher.group(1), Double.parseDouble(matcher.group(2)), Double::sum);
      }
    }
    return counts;
  }

  /**
   * The primer: {@code nodes} users, then for each an out-degree drawn from a Pareto distribution
   * (mostly a few, sometimes hundreds) of {@code follows} edges to Zipf-chosen users.
   */
  /** The primer's answer, if it is the one expected: a primer that fails a write stops the run rather than measure a graph it did not load. */
  private static io.vertx.ext.web.client.HttpResponse<Buffer> primed(io.vertx.ext.web.client.HttpResponse<Buffer> response,
      int expected) {
    if (response.statusCode() != expected) {
      throw new IllegalStateException("primer: expected " + expected + ", got " + response.statusCode() + ": "
          + response.bodyAsString());
    }
    return response;
  }

  private static Graph load(Vertx vertx, int port, int nodes) {
    System.out.printf("primer: loading %d users and their edges%n", nodes);
    WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port),
        new io.vertx.core.http.PoolOptions().setHttp1MaxSize(32));
    List<Long> ids = Collections.synchronizedList(new ArrayList<>());
    for (int done = 0; done < nodes; done += 32) {
      List<Future<?>> batch = new ArrayList<>();
      for (int i = done; i < Math.min(nodes, done + 32); i++) {
        batch.add(client.request(HttpMethod.POST, "/v1/nodes/user")
            .sendBuffer(Buffer.buffer("{\"data\": {\"name\": \"user" + i + "\"}}"))
            .map(response -> primed(response, 201))
            .onSuccess(response -> ids.add(Long.parseLong(response.bodyAsJsonObject().getString("id")))));
      }
      Future.all(batch).await();
    }
    List<Long> ranked = new ArrayList<>(ids);
    Collections.shuffle(ranked, new java.util.Random(1));
    Graph graph = new Graph(ranked, Graph.READ_SHAPE, Graph.WRITE_SHAPE);
    SplittableRandom random = new SplittableRandom(11);
    List<long[]> edges = new ArrayList<>();
    for (long from : ranked) {
      int degree = (int) Math.min(200, Math.floor(2 / Math.pow(1 - random.nextDouble(), 1 / 1.5)));
      for (int i = 0; i < degree; i++) {
        edges.add(new long[] {from, graph.writeNode(random)});
      }
    }
    for (int done = 0; done < edges.size(); done += 64) {
      List<Future<?>> batch = new ArrayList<>();
      for (long[] edge : edges.subList(done, Math.min(edges.size(), done + 64))) {
        batch.add(client.request(HttpMethod.PUT, "/v1/nodes/" + edge[0] + "/edges/follows/" + edge[1]).send()
            .map(response -> primed(response, 200))
            .onSuccess(response -> graph.edge(edge[0], edge[1])));
      }
      Future.all(batch).await();
    }
    client.close();
    System.out.printf("primer: %d users, %d edges%n", ids.size(), edges.size());
    return graph;
  }
}
