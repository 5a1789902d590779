package io.quiver.benchmarks.hot;

import ch.qos.logback.classic.AsyncAppender;
import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.encoder.PatternLayoutEncoder;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.FileAppender;
import io.quiver.api.server.QuiverServer;
import io.quiver.benchmarks.ChildJvm;
import io.quiver.benchmarks.CpuTime;
import io.quiver.benchmarks.JitActivity;
import io.quiver.benchmarks.JitWatch;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import one.profiler.AsyncProfiler;
import one.profiler.Counter;
import org.slf4j.LoggerFactory;

/**
 * {@code ./bench hot}: what a cache hit costs against the HTTP stack's ceiling. One Quiver server
 * with its cache over the embedded stack, access log on (asynchronous, to a file, as a deployment
 * would), answers a getNode and a getEdges of 50 edges from memory; a bare Vert.x server, one per
 * event loop like Quiver's, answers the very same bytes. A load generator in its own JVM
 * ({@link LoadGenerator}) drives them interleaved: after one warm-up of each case, and more of
 * each in turn until the JIT has settled ({@link #settle}), short rounds
 * alternate Quiver and bare Vert.x on the same call (which goes first alternates too), so the
 * machine's drift — this one is shared and moves by a quarter within the hour — falls on both
 * sides of each ratio. The report gives each case's median and spread, the median of the rounds'
 * ratios to bare Vert.x, and the CPU the generator took (it shares the two cores with what it
 * measures).
 *
 * <p>{@code ./bench hot [--rounds N] [--duration SECONDS] [--warmup SECONDS] [--warmup-max SECONDS]
 * [--connections N] [--no-access-log] [--profile]}: {@code --warmup-max} bounds the warm-up after the first
 * (default 120 s); {@code --profile} takes async-profiler's CPU profile of the servers' JVM around
 * each measured round and prints each case's CPU per request by layer ({@link StackProfile}), so
 * what separates a cached read from bare Vert.x is read in microseconds where it is spent.
 */
public final class HotPath {
  private HotPath() {}

  private record Case(String name, int port, String path) {}

  /** A call measured against bare Vert.x serving its bytes: the two cases of each round. */
  private record Pair(Case quiver, Case bare) {}

  private record Run(long requests, double perSecond, double generatorCpuShare, double serverCpuShare, long errors) {}

  public static void main(String[] args) throws Exception {
    long duration = 5;
    long warmup = 10;
    long warmupMax = 120;
    int connections = 16;
    int rounds = 8;
    boolean accessLog = true;
    boolean profile = false;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--duration" -> duration = Long.parseLong(args[++i]);
        case "--warmup" -> warmup = Long.parseLong(args[++i]);
        case "--warmup-max" -> warmupMax = Long.parseLong(args[++i]);
        case "--connections" -> connections = Integer.parseInt(args[++i]);
        case "--rounds" -> rounds = Integer.parseInt(args[++i]);
        case "--no-access-log" -> accessLog = false;
        case "--profile" -> profile = true;
        default -> {
          System.err.println("usage: ./bench hot [--rounds N] [--duration S] [--warmup S] [--warmup-max S] [--connections N]"
              + " [--no-access-log] [--profile]");
          System.exit(2);
        }
      }
    }
    Path target = Path.of("benchmarks", "target").toAbsolutePath();
    if (accessLog) {
      logAccessTo(target.resolve("hot-access.log"));
    }
    Vertx vertx = Vertx.vertx();
    Vertx bare = Vertx.vertx();
    Map<String, List<Run>> results = new LinkedHashMap<>();
    try (DevStack stack = DevStack.start(target.resolve("hot-data-" + System.currentTimeMillis()));
        QuiverServer quiver = QuiverServer.start(stack.config(Ports.free()), stack.schema())) {
      WebClient client = WebClient.create(vertx, new WebClientOptions().setDefaultHost("127.0.0.1")
          .setDefaultPort(quiver.port()));
      String user = createUser(client, "hot");
      for (int i = 0; i < 50; i++) {
        String other = createUser(client, "other" + i);
        client.request(HttpMethod.PUT, "/v1/nodes/" + user + "/edges/follows/" + other).send().await();
      }
      String nodePath = "/v1/nodes/" + user;
      String edgesPath = "/v1/nodes/" + user + "/edges/follows?limit=50";
      Buffer node = client.request(HttpMethod.GET, nodePath).send().await().body();
      Buffer edges = client.request(HttpMethod.GET, edgesPath).send().await().body();
      int barePort = Ports.free();
      serveFixed(bare, barePort, node, edges);
      List<Pair> pairs = List.of(
          new Pair(new Case("quiver getNode", quiver.port(), nodePath), new Case("bare-vertx getNode", barePort, "/node")),
          new Pair(new Case("quiver getEdges", quiver.port(), edgesPath),
              new Case("bare-vertx getEdges", barePort, "/edges")));
      System.out.printf("hot path: node %d bytes, 50 edges %d bytes; %d connections; %d s warm-up of each case (its own"
          + " generator, kept), then %d rounds of %d s per case, Quiver and bare Vert.x alternating; access log %s%n", node.length(), edges.length(),
          connections, warmup, rounds, duration, accessLog ? "on (async, to a file)" : "off");
      // One generator per case, each warmed up in turn and kept: a round's measurement starts warm.
      Map<Case, Generator> generators = new LinkedHashMap<>();
      for (Pair pair : pairs) {
        for (Case each : List.of(pair.quiver(), pair.bare())) {
          generators.put(each, Generator.warmed(each, connections, warmup));
        }
      }
      Optional<AsyncProfiler> profiler = profile ? profiler() : Optional.empty();
      Map<String, StackProfile> profiles = new LinkedHashMap<>();
      if (profiler.isPresent()) {
        for (Case each : generators.keySet()) {
          Files.deleteIfExists(stacksOf(target, each));
        }
      }
      try {
        System.out.println(settle(generators.values(), warmupMax));
        Optional<JitActivity> jitBefore = JitActivity.of(ProcessHandle.current());
        long roundsStarted = System.nanoTime();
        for (int round = 0; round < rounds; round++) {
          for (Pair pair : pairs) {
            List<Case> order = round % 2 == 0 ? List.of(pair.quiver(), pair.bare()) : List.of(pair.bare(), pair.quiver());
            for (Case each : order) {
              Generator generator = generators.get(each);
              Run measured = profiler.isEmpty() ? generator.measure(duration)
                  : profiled(profiler.get(), generator, duration,
                      profiles.computeIfAbsent(each.name(), name -> new StackProfile()), stacksOf(target, each));
              System.out.printf(Locale.ROOT,
                  "  round %d: %-20s %,10.0f req/s  generator CPU %4.0f %%  server CPU %4.0f %%%n",
                  round + 1, each.name(), measured.perSecond(), measured.generatorCpuShare() * 100,
                  measured.serverCpuShare() * 100);
              results.computeIfAbsent(each.name(), name -> new ArrayList<>()).add(measured);
            }
          }
        }
        double roundsSeconds = (System.nanoTime() - roundsStarted) / 1e9;
        jitBefore.flatMap(before -> JitActivity.of(ProcessHandle.current()).map(now -> now.since(before)))
            .ifPresent(jit -> System.out.printf(Locale.ROOT, "JIT while measured: %d methods, %.2f s of compiling per"
                + " second of the rounds%n", jit.compiled(), jit.seconds() / roundsSeconds));
      } finally {
        for (Generator generator : generators.values()) {
          generator.close();
        }
      }
      quiver.cache().ifPresent(cache -> cache.figures().forEach(figures -> System.out.printf(Locale.ROOT,
          "cache %s: hit ratio %.4f%n", figures.cache(), figures.hitRatio())));
      System.out.println(table(results));
      if (!profiles.isEmpty()) {
        System.out.println(profileTable(profiles));
      }
    } finally {
      bare.close().await();
      vertx.close().await();
    }
    System.exit(0);
  }

  /**
   * Warms every case further, a {@link JitActivity#STEP} each in turn, until this JVM's compiler
   * (the servers', Quiver's and bare Vert.x's) compiles fewer than {@value JitActivity#SETTLED_METHODS}
   * methods in less than {@value JitActivity#SETTLED_SECONDS} s a step over each of {@value JitWatch#QUIET_STEPS}
   * cycles of them in a row ({@link JitWatch}), or {@code maxSeconds} have gone: a round measured while the JIT still
   * compiles Quiver's code (more of it than bare Vert.x's) measures the compiler, on its side only.
   * Answers what it did, for the report.
   */
  private static String settle(Collection<Generator> generators, long maxSeconds) throws Exception {
    Optional<JitActivity> start = JitActivity.of(ProcessHandle.current());
    if (start.isEmpty()) {
      return "JIT not watched (no jstat)";
    }
    JitWatch watch = new JitWatch(start.get());
    long spent = 0;
    while (spent < maxSeconds) {
      for (Generator generator : generators) {
        generator.measure(JitActivity.STEP.toSeconds());
        spent += JitActivity.STEP.toSeconds();
      }
      Optional<JitActivity> now = JitActivity.of(ProcessHandle.current());
      if (now.isEmpty()) {
        return "JIT no longer watched after " + spent + " s more of warm-up (jstat stopped answering)";
      }
      if (watch.settledAfter(now.get(), generators.size())) {
        return "JIT settled after " + spent + " s more of warm-up";
      }
    }
    return "JIT still compiling after " + spent + " s more of warm-up";
  }

  private static String createUser(WebClient client, String name) {
    return client.request(HttpMethod.POST, "/v1/nodes/user")
        .sendBuffer(Buffer.buffer("{\"data\": {\"name\": \"" + name + "\"}}")).await()
        .bodyAsJsonObject().getString("id");
  }

  /** A bare Vert.x server per event loop, answering the bytes Quiver answered, by path. */
  private static void serveFixed(Vertx vertx, int port, Buffer node, Buffer edges) {
    vertx.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        return vertx.createHttpServer(new HttpServerOptions().setPort(port).setHost("127.0.0.1"))
            .requestHandler(request -> request.response().putHeader("Content-Type", "application/json")
                .end(request.path().equals("/edges") ? edges : node))
            .listen();
      }
    }, new DeploymentOptions().setInstances(Runtime.getRuntime().availableProcessors())).await();
  }

  /** A load generator process for one case ({@link LoadGenerator}), warmed up and waiting for periods to measure. */
  private static final class Generator implements AutoCloseable {
    private final Case each;
    private final Process process;
    private final BufferedReader out;
    private final java.io.Writer in;

    private Generator(Case each, Process process) {
      this.each = each;
      this.process = process;
      this.out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
      this.in = new java.io.OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    }

    static Generator warmed(Case each, int connections, long warmup) throws Exception {
      Generator generator = new Generator(each, ChildJvm.of("256m", LoadGenerator.class, Integer.toString(each.port()),
          each.path(), Integer.toString(connections), Long.toString(warmup)).redirectErrorStream(true).start());
      generator.awaitLine("warm");
      return generator;
    }

    /** One measured period, and this JVM's CPU over the same time. */
    Run measure(long seconds) throws Exception {
      double cpuBefore = CpuTime.thisProcess();
      long started = System.nanoTime();
      in.write(seconds + "\n");
      in.flush();
      String result = awaitLine("requests=");
      double serverSeconds = (System.nanoTime() - started) / 1e9;
      double serverCpu = CpuTime.thisProcess() - cpuBefore;
      Map<String, String> fields = new LinkedHashMap<>();
      for (String pair : result.split(" ")) {
        String[] kv = pair.split("=");
        fields.put(kv[0], kv[1]);
      }
      int cores = Runtime.getRuntime().availableProcessors();
      double elapsed = Double.parseDouble(fields.get("seconds"));
      long requests = Long.parseLong(fields.get("requests"));
      return new Run(requests, requests / elapsed,
          Double.parseDouble(fields.get("cpuSeconds")) / (elapsed * cores), serverCpu / (serverSeconds * cores),
          Long.parseLong(fields.get("errors")));
    }

    private String awaitLine(String prefix) throws Exception {
      for (String line = out.readLine(); line != null; line = out.readLine()) {
        if (line.startsWith(prefix)) {
          return line;
        }
        if (line.startsWith("error: ")) {
          System.out.printf("  %s: a request failed: %s%n", each.name(), line.substring("error: ".length()));
        }
      }
      throw new IllegalStateException("the load generator for " + each.name() + " ended without printing " + prefix);
    }

    @Override
    public void close() throws Exception {
      in.close();
      process.waitFor(10, java.util.concurrent.TimeUnit.SECONDS);
      process.destroy();
    }
  }

  /** Where a case's collapsed stacks go, every round's appended: {@code benchmarks/target/hot-profile-quiver-getNode.collapsed}. */
  private static Path stacksOf(Path target, Case each) {
    return target.resolve("hot-profile-" + each.name().replace(' ', '-') + ".collapsed");
  }

  /** Async-profiler's library, loaded into this JVM (the servers'), or empty with the reason printed. */
  private static Optional<AsyncProfiler> profiler() {
    try {
      AsyncProfiler profiler = AsyncProfiler.getInstance();
      System.out.println("profile: async-profiler " + profiler.getVersion() + ", CPU of every thread of the servers' JVM,"
          + " each case's rounds summed (stacks in benchmarks/target/hot-profile-*.collapsed)");
      return Optional.of(profiler);
    } catch (Throwable unavailable) {
      System.out.println("profile: not taken, async-profiler could not load here (" + unavailable + ")");
      return Optional.empty();
    }
  }

  /**
   * One measured round under the profiler: started right before it, its stacks added to the case's
   * profile (and appended to {@code stacks}, for a flame graph) right after. A failure to start
   * the profiler (no perf events, nor a timer) is reported and the round measured without it.
   */
  private static Run profiled(AsyncProfiler profiler, Generator generator, long seconds, StackProfile into, Path stacks)
      throws Exception {
    try {
      profiler.execute("start,event=cpu,interval=1ms");
    } catch (Exception refused) {
      System.out.println("  profile: not taken for this round (" + refused.getMessage() + ")");
      return generator.measure(seconds);
    }
    Run measured;
    try {
      measured = generator.measure(seconds);
    } finally {
      profiler.stop();
    }
    String collapsed = profiler.dumpCollapsed(Counter.TOTAL);
    into.add(collapsed, measured.requests());
    Files.writeString(stacks, collapsed, StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return measured;
  }

  /** Each case's CPU per request by layer ({@link StackProfile#LAYERS}), the cases side by side. */
  private static String profileTable(Map<String, StackProfile> profiles) {
    StringBuilder out = new StringBuilder("\n| µs of CPU per request |");
    profiles.keySet().forEach(name -> out.append(' ').append(name).append(" |"));
    out.append("\n|---|").append("---:|".repeat(profiles.size())).append('\n');
    List<Map<String, Double>> micros = profiles.values().stream().map(StackProfile::microsPerRequest).toList();
    for (StackProfile.Layer layer : StackProfile.LAYERS) {
      out.append("| ").append("· ".repeat(layer.depth())).append(layer.name()).append(" |");
      micros.forEach(each -> out.append(String.format(Locale.ROOT, " %.1f |", each.get(layer.name()))));
      out.append('\n');
    }
    return out.toString();
  }

  private static String table(Map<String, List<Run>> results) {
    StringBuilder out = new StringBuilder("\n| case | req/s (median) | spread | ÷ bare-vertx (median of rounds) | generator CPU"
        + " | server CPU | errors |\n|---|---:|---:|---:|---:|---:|---:|\n");
    for (Map.Entry<String, List<Run>> entry : results.entrySet()) {
      String name = entry.getKey();
      List<Run> runs = entry.getValue();
      List<Run> bare = results.get(name.replace("quiver", "bare-vertx"));
      double[] ratios = new double[runs.size()];
      for (int round = 0; round < runs.size(); round++) {
        ratios[round] = runs.get(round).perSecond() / bare.get(round).perSecond();
      }
      java.util.Arrays.sort(ratios);
      double min = runs.stream().mapToDouble(Run::perSecond).min().orElse(0);
      double max = runs.stream().mapToDouble(Run::perSecond).max().orElse(0);
      out.append(String.format(Locale.ROOT, "| %s | %,.0f | %,.0f–%,.0f | %.2f (%.2f–%.2f) | %.0f %% | %.0f %% | %d |%n", name,
          median(runs, Run::perSecond), min, max, ratios[ratios.length / 2], ratios[0], ratios[ratios.length - 1],
          median(runs, Run::generatorCpuShare) * 100, median(runs, Run::serverCpuShare) * 100,
          runs.stream().mapToLong(Run::errors).sum()));
    }
    return out.toString();
  }

  private static double median(List<Run> runs, java.util.function.ToDoubleFunction<Run> value) {
    double[] values = runs.stream().mapToDouble(value).sorted().toArray();
    return values[values.length / 2];
  }


  /** The access log on, as a deployment runs it: through a queue to a file. */
  private static void logAccessTo(Path file) {
    LoggerContext context = (LoggerContext) LoggerFactory.getILoggerFactory();
    PatternLayoutEncoder encoder = new PatternLayoutEncoder();
    encoder.setContext(context);
    encoder.setPattern("%msg%n");
    encoder.start();
    FileAppender<ILoggingEvent> toFile = new FileAppender<>();
    toFile.setContext(context);
    toFile.setFile(file.toString());
    toFile.setAppend(false);
    toFile.setEncoder(encoder);
    toFile.start();
    AsyncAppender async = new AsyncAppender();
    async.setContext(context);
    async.setQueueSize(8192);
    async.setDiscardingThreshold(0);
    async.setNeverBlock(true);
    async.addAppender(toFile);
    async.start();
    Logger access = context.getLogger("io.quiver.access");
    access.setLevel(Level.INFO);
    access.setAdditive(false);
    access.addAppender(async);
  }
}
