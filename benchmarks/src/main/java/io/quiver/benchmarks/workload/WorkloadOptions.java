package io.quiver.benchmarks.workload;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * What to run. The default runs every target three times in shuffled orders at {@code --quick}'s
 * sizes; {@code --quick} runs once, for a look rather than a figure; {@code --full} is larger and
 * longer, with the caches at a tenth of the data, at 20,000 and then 100,000 users; every figure
 * can be set on its own.
 */
record WorkloadOptions(int nodes, Duration warmup, Duration measure, List<Integer> concurrency, Integer rate,
    Mix mix, Path output, int runs, Double cacheFraction, Integer bufferPoolMb, Duration warmupMax,
    Set<String> targets, Map<String, Path> builds) {
  /** The targets every run can measure, in the report's order; other builds' come after {@code quiver}. */
  static final List<String> TARGETS = List.of("quiver", "quiver-nolog", "quiver-tailed", "quiver-nocache",
      "lookaside", "jdbc-http", "jdbc", "bare-vertx");
  /**
   * Targets measured only when named: {@code quiver-nolog} and {@code quiver-tailed} answer
   * questions about Quiver (what its change log costs a mix, and what writing it from the binary
   * log saves), not about its rivals, and would lengthen every default run by a server and a data
   * set each.
   */
  private static final Set<String> NAMED_ONLY = Set.of("quiver-nolog", "quiver-tailed");
  /** A build's label: what follows {@code quiver-} in its target's name. */
  private static final java.util.regex.Pattern LABEL = java.util.regex.Pattern.compile("[a-z0-9][a-z0-9.]{0,23}");

  /** One run of each target, in the order listed, each warm-up exactly {@code warmup}. */
  WorkloadOptions(int nodes, Duration warmup, Duration measure, List<Integer> concurrency, Integer rate, Mix mix,
      Path output) {
    this(nodes, warmup, measure, concurrency, rate, mix, output, 1, null, null, warmup, null, null);
  }

  WorkloadOptions {
    if (warmupMax.compareTo(warmup) < 0) {
      throw new IllegalArgumentException("--warmup-max must be at least --warmup");
    }
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be at least 1, got " + runs);
    }
    if (bufferPoolMb != null && bufferPoolMb < 2) {
      throw new IllegalArgumentException("--buffer-pool-mb must be at least 2 (MariaDB's least), got " + bufferPoolMb);
    }
    if (cacheFraction != null && (cacheFraction <= 0 || cacheFraction >= 1)) {
      throw new IllegalArgumentException("--cache-fraction must be between 0 and 1, got " + cacheFraction);
    }
    builds = builds == null ? Map.of() : Collections.unmodifiableMap(new LinkedHashMap<>(builds));
    builds.forEach((label, jar) -> {
      if (!LABEL.matcher(label).matches() || TARGETS.contains("quiver-" + label)) {
        throw new IllegalArgumentException("a build's label is 1-24 of a-z, 0-9 and '.', and names no target of this build (nocache, nolog): " + label);
      }
      if (!Files.isRegularFile(jar)) {
        throw new IllegalArgumentException("--build " + label + " names no file: " + jar);
      }
    });
    Set<String> known = new LinkedHashSet<>(allTargets(builds));
    if (targets == null) {
      targets = new LinkedHashSet<>(known);
      targets.removeAll(NAMED_ONLY);
    } else if (!known.containsAll(targets) || targets.isEmpty()) {
      throw new IllegalArgumentException("--targets takes some of " + known + ", got " + targets
          + " (quiver-LABEL needs --build LABEL=JAR)");
    } else if (targets.equals(Set.of("bare-vertx"))) {
      throw new IllegalArgumentException("--targets needs at least one target with a database");
    }
    targets = Set.copyOf(targets);
  }

  /** Whether {@code target} is to be measured. */
  boolean measures(String target) {
    return targets.contains(target);
  }

  /** Every target a run can measure, in the report's order: {@code quiver}, then each other build's, then the rest. */
  List<String> allTargets() {
    return allTargets(builds);
  }

  private static List<String> allTargets(Map<String, Path> builds) {
    List<String> all = new ArrayList<>(List.of(TARGETS.get(0)));
    builds.keySet().forEach(label -> all.add("quiver-" + label));
    all.addAll(TARGETS.subList(1, TARGETS.size()));
    return all;
  }

  /** The other build a target runs ({@code quiver-LABEL}), or null when it runs this one or is not Quiver. */
  Path buildOf(String target) {
    return target.startsWith("quiver-") ? builds.get(target.substring("quiver-".length())) : null;
  }

  static final String USAGE = """
      ./bench workload [--quick | --full] [--nodes N[,N…]] [--warmup SECONDS] [--warmup-max SECONDS]
                       [--duration SECONDS]
                       [--concurrency 8,32,128] [--rate OPS_PER_SECOND]
                       [--mix linkbench|tao|points|points-batch|writes]
                       [--runs N] [--cache-fraction F] [--buffer-pool-mb M] [--out FILE]
                       [--targets quiver,lookaside,…] [--build LABEL=QUIVER_JAR …] [--before QUIVER_JAR]
        (default)      1,000 nodes, 3 s warm-up, 8 s per measurement, 16 callers, 3 runs
        --quick        the same, one run: a look, not a figure
        --full         20,000 then 100,000 nodes (a report each), 15 s warm-up, 30 s per measurement, a ladder
                       of 8, 32, 128 callers, 3 runs, the caches at a tenth of the data
        --nodes        users in the graph; a list runs the whole benchmark once per size, a report each
        --warmup       each warm-up's least length; it goes on in 5 s steps until the server's JIT compiler
                       has been quiet four steps in a row (fewer than 20 methods and under 0.25 s of
                       compiling a step, read with jstat), up to --warmup-max (default 120 s; 30 s with --quick)
        --runs         run every target this many times, each run in a new shuffled order; the tables give
                       each figure's median and spread (default 3)
        --concurrency  closed-loop callers; a list runs a concurrency ladder
        --rate         an open loop at this many operations a second instead of a closed loop
        --mix          LinkBench's mix (the default), TAO's read mix, TAO's reads with edge reads mostly single
                       edges (points; points-batch asks for them ten at a time, across sources), or edge writes only
        --cache-fraction  Quiver's caches and Redis (lookaside) hold this fraction of the data (0.1: a tenth;
                       0.1 with --full); Quiver's node hit ratio is given beside the best possible for the
                       trace it saw (Belady's MIN). Without it, both hold Quiver's defaults (all of it)
        --buffer-pool-mb  each MariaDB host's InnoDB buffer pool, in MiB: 5 with --full makes the data larger
                       than the databases' memory (the default is MariaDB's, 128 MiB)
        --out          the JSON report (default benchmarks/target/workload-report.json)
        --targets      measure only these (default: all of quiver, quiver-nocache, lookaside, jdbc-http, jdbc,
                       bare-vertx, and quiver-LABEL for each --build; quiver-nolog, quiver with
                       changes.enabled: false, and quiver-tailed, quiver with changes.source: binlog,
                       each on a data set of its own, only when named)
        --build        another build of Quiver (its dev/target/quiver.jar, say of an earlier commit), measured
                       side by side as quiver-LABEL: the same settings and cache as quiver, a data set of its own;
                       may be given several times
        --before       the same as --build before=QUIVER_JAR
      """;

  /** One set of options per graph size asked for, each writing its own report when there are several. */
  static List<WorkloadOptions> parseAll(String[] args) {
    List<Integer> nodes = List.of(1000);
    Duration warmup = Duration.ofSeconds(3);
    Duration measure = Duration.ofSeconds(8);
    List<Integer> concurrency = List.of(16);
    Integer rate = null;
    Mix mix = Mix.LINKBENCH;
    Path output = Path.of("benchmarks/target/workload-report.json");
    int runs = 3;
    Duration warmupMax = Duration.ofSeconds(120);
    Double cacheFraction = null;
    Integer bufferPoolMb = null;
    Set<String> targets = null;
    Map<String, Path> builds = new LinkedHashMap<>();
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> {
          runs = 1;
          warmupMax = Duration.ofSeconds(30);
        }
        case "--full" -> {
          nodes = List.of(20_000, 100_000);
          warmup = Duration.ofSeconds(15);
          measure = Duration.ofSeconds(30);
          concurrency = List.of(8, 32, 128);
          runs = 3;
          cacheFraction = 0.1;
        }
        case "--nodes" -> nodes = integers(args[++i]);
        case "--warmup" -> warmup = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--warmup-max" -> warmupMax = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--duration" -> measure = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--concurrency" -> concurrency = integers(args[++i]);
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--mix" -> mix = Mix.of(args[++i]);
        case "--out" -> output = Path.of(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--cache-fraction" -> cacheFraction = Double.parseDouble(args[++i]);
        case "--buffer-pool-mb" -> bufferPoolMb = Integer.parseInt(args[++i]);
        case "--targets" -> targets = new LinkedHashSet<>(List.of(args[++i].split(",")));
        case "--before" -> builds.put("before", Path.of(args[++i]).toAbsolutePath());
        case "--build" -> {
          String[] build = args[++i].split("=", 2);
          if (build.length != 2) {
            throw new IllegalArgumentException("--build takes LABEL=QUIVER_JAR, got " + args[i]);
          }
          builds.put(build[0], Path.of(build[1]).toAbsolutePath());
        }
        default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
      }
    }
    List<WorkloadOptions> all = new ArrayList<>();
    for (int size : nodes) {
      Path written = nodes.size() == 1 ? output
          : output.resolveSibling(output.getFileName().toString().replaceFirst("(\\.json)?$", "-" + size + ".json"));
      all.add(new WorkloadOptions(size, warmup, measure, concurrency, rate, mix, written, runs, cacheFraction,
          bufferPoolMb, warmupMax.compareTo(warmup) < 0 ? warmup : warmupMax, targets, builds));
    }
    return all;
  }

  private static List<Integer> integers(String list) {
    List<Integer> values = new ArrayList<>();
    for (String value : list.split(",")) {
      values.add(Integer.parseInt(value.trim()));
    }
    return values;
  }
}
