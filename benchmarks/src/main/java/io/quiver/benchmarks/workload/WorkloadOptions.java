package io.quiver.benchmarks.workload;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

/**
 * What to run. {@code --quick} (the default) finishes in under three minutes on two cores;
 * {@code --full} is larger and longer; every figure can be set on its own.
 */
record WorkloadOptions(int nodes, Duration warmup, Duration measure, List<Integer> concurrency, Integer rate,
    Mix mix, Path output, int runs, Double cacheFraction, Integer bufferPoolMb) {

  /** One run of each target, in the order listed. */
  WorkloadOptions(int nodes, Duration warmup, Duration measure, List<Integer> concurrency, Integer rate, Mix mix,
      Path output) {
    this(nodes, warmup, measure, concurrency, rate, mix, output, 1, null, null);
  }

  WorkloadOptions {
    if (runs < 1) {
      throw new IllegalArgumentException("--runs must be at least 1, got " + runs);
    }
    if (bufferPoolMb != null && bufferPoolMb < 2) {
      throw new IllegalArgumentException("--buffer-pool-mb must be at least 2 (MariaDB's least), got " + bufferPoolMb);
    }
    if (cacheFraction != null && (cacheFraction <= 0 || cacheFraction >= 1)) {
      throw new IllegalArgumentException("--cache-fraction must be between 0 and 1, got " + cacheFraction);
    }
  }

  static final String USAGE = """
      ./bench workload [--quick | --full] [--nodes N] [--warmup SECONDS] [--duration SECONDS]
                       [--concurrency 8,32,128] [--rate OPS_PER_SECOND]
                       [--mix linkbench|tao|points|points-batch|writes]
                       [--runs N] [--cache-fraction F] [--buffer-pool-mb M] [--out FILE]
        --quick        1,000 nodes, 3 s warm-up, 8 s per measurement, 16 callers, one run (the default)
        --full         20,000 nodes, 15 s warm-up, 30 s per measurement, a ladder of 8, 32, 128 callers, 3 runs
        --runs         run every target this many times, each run in a new shuffled order; the tables give
                       each figure's median and spread
        --concurrency  closed-loop callers; a list runs a concurrency ladder
        --rate         an open loop at this many operations a second instead of a closed loop
        --mix          LinkBench's mix (the default), TAO's read mix, TAO's reads with edge reads mostly single
                       edges (points; points-batch asks for them ten at a time, across sources), or edge writes only
        --cache-fraction  also a Quiver server whose caches hold this fraction of the data (0.1: a tenth),
                       its node hit ratio beside the best possible for the trace it saw (Belady's MIN)
        --buffer-pool-mb  each MariaDB host's InnoDB buffer pool, in MiB: 5 with --full makes the data larger
                       than the databases' memory (the default is MariaDB's, 128 MiB)
        --out          the JSON report (default benchmarks/target/workload-report.json)
      """;

  static WorkloadOptions parse(String[] args) {
    int nodes = 1000;
    Duration warmup = Duration.ofSeconds(3);
    Duration measure = Duration.ofSeconds(8);
    List<Integer> concurrency = List.of(16);
    Integer rate = null;
    Mix mix = Mix.LINKBENCH;
    Path output = Path.of("benchmarks/target/workload-report.json");
    int runs = 1;
    Double cacheFraction = null;
    Integer bufferPoolMb = null;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--quick" -> { }
        case "--full" -> {
          nodes = 20_000;
          warmup = Duration.ofSeconds(15);
          measure = Duration.ofSeconds(30);
          concurrency = List.of(8, 32, 128);
          runs = 3;
        }
        case "--nodes" -> nodes = Integer.parseInt(args[++i]);
        case "--warmup" -> warmup = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--duration" -> measure = Duration.ofSeconds(Long.parseLong(args[++i]));
        case "--concurrency" -> {
          List<Integer> ladder = new ArrayList<>();
          for (String step : args[++i].split(",")) {
            ladder.add(Integer.parseInt(step.trim()));
          }
          concurrency = ladder;
        }
        case "--rate" -> rate = Integer.parseInt(args[++i]);
        case "--mix" -> mix = Mix.of(args[++i]);
        case "--out" -> output = Path.of(args[++i]);
        case "--runs" -> runs = Integer.parseInt(args[++i]);
        case "--cache-fraction" -> cacheFraction = Double.parseDouble(args[++i]);
        case "--buffer-pool-mb" -> bufferPoolMb = Integer.parseInt(args[++i]);
        default -> throw new IllegalArgumentException("unknown option " + args[i] + "\n" + USAGE);
      }
    }
    return new WorkloadOptions(nodes, warmup, measure, concurrency, rate, mix, output, runs, cacheFraction,
        bufferPoolMb);
  }
}
