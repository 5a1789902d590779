package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.DoubleSummaryStatistics;
import java.util.Map;
import java.util.Objects;
import java.util.TreeMap;
import java.util.function.ToDoubleFunction;
import java.util.stream.Collectors;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/**
 * The results of a benchmark: a table per concurrency level with a column per target and its
 * ratio to Quiver. With several runs, each figure is the median over the runs (latencies those of
 * the run with the median rate) and the spread says how far the runs lay apart.
 */
final class Report {
  /**
   * One target measured once.
   *
   * @param run which run, from 1
   * @param sustained operations over the phase and the outbox drain after it, per second; null for
   *     targets without an outbox
   * @param hitRatios each cache's hit ratio over the phase, by name: Quiver's ({@code nodes},
   *     {@code edge_windows}, {@code edge_points}) from its {@code /metrics}, {@code redis} for
   *     {@code lookaside}; empty for a target without a cache
   * @param countsAgree whether the driver's count of each operation equals the server's own
   *     ({@code /metrics}); null for a target that does not count
   */
  record Measured(String target, int concurrency, int run, double seconds, Recording recording, Double sustained,
      Cpu cpu, HostWork hosts, Map<String, Double> hitRatios, Boolean countsAgree) {
    Measured {
      hitRatios = Map.copyOf(hitRatios);
    }

    /** Without CPU, disk, cache or count figures. */
    Measured(String target, int concurrency, int run, double seconds, Recording recording, Double sustained) {
      this(target, concurrency, run, seconds, recording, sustained, null, null, Map.of(), null);
    }

    /** Successful operations a second: an answer of 5xx or none at all is a failure, counted beside, not here. */
    double opsPerSecond() {
      return (recording.all().getTotalCount() - failures()) / seconds;
    }

    /** Calls answered 5xx or not at all, every operation's. */
    long failures() {
      return List.of(Operation.values()).stream().mapToLong(recording::failures).sum();
    }
  }

  /**
   * CPU time per operation over a measured phase, in milliseconds, of each party apart.
   *
   * @param database every MariaDB process
   * @param servers the target's own server JVM, with its Redis for {@code lookaside}; 0 for the
   *     in-process {@code jdbc}
   * @param generator the load generator's JVM ({@link GeneratorProcess}), the in-process
   *     {@code jdbc} target's SQL included
   * @param generatorShare the generator's share of the machine's CPU over the phase (1.0: every core)
   * @param compiling the seconds the measured JVM's JIT compiler spent per second of the phase (jstat's
   *     compile time; NaN where jstat is missing): a warm-up that ended before the JIT settled leaves
   *     part of the server's CPU per operation to its compiler, and a skeptical reader must see it
   */
  record Cpu(double database, double servers, double generator, double generatorShare, double compiling) {}

  /**
   * What a measured phase asked of the MariaDB hosts, per operation: their disks (where the data is
   * larger than the buffer pool, a target waits on these more than it spends CPU) and the
   * statements it sent them.
   *
   * @param pageReads InnoDB pages read from disk (the buffer pool's misses)
   * @param fsyncs InnoDB's {@code fsync()} calls
   * @param statements statements run ({@code Questions}), an outbox drainer's and the probes' included
   * @param prepares statements prepared ({@code Com_stmt_prepare}), each parsed and planned anew
   * @param lockWaits row locks waited for
   * @param lockWaitMs milliseconds spent waiting for them
   * @param deadlocks transactions rolled back to break a deadlock (each retried by its writer)
   */
  record HostWork(double pageReads, double fsyncs, double statements, double prepares, double lockWaits,
      double lockWaitMs, double deadlocks) {}

  /** The columns' order, whatever order the runs took. */
  private static final List<String> COLUMNS = WorkloadOptions.TARGETS;

  /** One target's runs at one concurrency: the median run, the medians and the spread. */
  private record Column(String target, List<Measured> runs) {
    Measured median() {
      List<Measured> sorted = runs.stream().sorted(Comparator.comparingDouble(Measured::opsPerSecond)).toList();
      return sorted.get(sorted.size() / 2);
    }

    double opsPerSecond() {
      return median().opsPerSecond();
    }

    String spread() {
      DoubleSummaryStatistics rates = runs.stream().mapToDouble(Measured::opsPerSecond).summaryStatistics();
      return String.format(Locale.ROOT, "%.0f–%.0f", rates.getMin(), rates.getMax());
    }

    /**
     * The longest call of each run, in run order, in ms: a stall that a target without deadlines
     * sits out as one long wait per caller and one with deadlines answers 5xx at its deadline,
     * neither of which the percentiles show when it is shorter than a thousandth of the calls.
     */
    String longest() {
      return runs.stream().sorted(Comparator.comparingInt(Measured::run))
          .map(run -> String.format(Locale.ROOT, "%.0f", run.recording().all().getMaxValue() / 1000.0))
          .collect(Collectors.joining(", "));
    }

    Double sustained() {
      List<Double> rates = runs.stream().map(Measured::sustained).filter(Objects::nonNull).sorted().toList();
      return rates.isEmpty() ? null : rates.get(rates.size() / 2);
    }
  }

  private final List<Measured> results = new ArrayList<>();
  private final List<String> notes = new ArrayList<>();
  private final Integer rate;

  /** @param rate the open loop's operations a second; null for closed loops */
  Report(Integer rate) {
    this.rate = rate;
  }

  void add(Measured measured) {
    results.add(measured);
  }

  void note(String note) {
    notes.add(note);
  }

  List<String> notes() {
    return List.copyOf(notes);
  }

  /** Calls answered 5xx or not at all, over every measured phase so far. */
  long failures() {
    return results.stream().mapToLong(Measured::failures).sum();
  }

  List<Measured> results() {
    return List.copyOf(results);
  }

  String table() {
    StringBuilder out = new StringBuilder();
    int runs = results.stream().mapToInt(Measured::run).max().orElse(1);
    for (int concurrency : results.stream().map(Measured::concurrency).distinct().toList()) {
      List<Column> level = columns(concurrency);
      Column quiver = level.stream().filter(c -> c.target().equals("quiver")).findFirst().orElse(level.get(0));
      String runsSaid = runs > 1 ? "; medians of " + runs + " runs in shuffled orders" : "";
      out.append(rate == null
          ? String.format("%n%d callers (closed loop; latency in ms over all operations%s)%n%n", concurrency, runsSaid)
          : String.format("%nopen loop at %d operations a second (latency in ms from each scheduled start%s)%n%n", rate,
              runsSaid));
      out.append("| | ");
      level.forEach(c -> out.append(c.target()).append(" | "));
      out.append("\n|---|");
      level.forEach(c -> out.append("---:|"));
      out.append('\n');
      row(out, "ops/s", level, c -> String.format(Locale.ROOT, "%.0f", c.opsPerSecond()));
      if (runs > 1) {
        row(out, "spread", level, Column::spread);
      }
      row(out, "ops/s ÷ quiver", level, c -> String.format(Locale.ROOT, "%.2f", c.opsPerSecond() / quiver.opsPerSecond()));
      if (quiver.sustained() != null) {
        row(out, "sustained ops/s", level, c -> c.sustained() == null ? "—"
            : String.format(Locale.ROOT, "%.0f", c.sustained()));
        row(out, "sustained ÷ quiver", level, c -> c.sustained() == null ? "—"
            : String.format(Locale.ROOT, "%.2f", c.sustained() / quiver.sustained()));
      }
      for (double percentile : new double[] {50, 95, 99, 99.9}) {
        row(out, "p" + trim(percentile), level, c -> String.format(Locale.ROOT, "%.2f",
            c.median().recording().all().getValueAtPercentile(percentile) / 1000.0));
      }
      row(out, "p99 ÷ quiver", level, c -> String.format(Locale.ROOT, "%.2f",
          (double) c.median().recording().all().getValueAtPercentile(99)
              / Math.max(1, quiver.median().recording().all().getValueAtPercentile(99))));
      row(out, runs > 1 ? "longest call ms, run by run" : "longest call ms", level, Column::longest);
      if (level.stream().allMatch(c -> c.median().cpu() != null)) {
        row(out, "MariaDB CPU ms/op", level, c -> String.format(Locale.ROOT, "%.3f", c.median().cpu().database()));
        row(out, "server CPU ms/op (its JVM, + Redis)", level, c -> String.format(Locale.ROOT, "%.3f", c.median().cpu().servers()));
        row(out, "generator CPU ms/op", level, c -> String.format(Locale.ROOT, "%.3f", c.median().cpu().generator()));
        row(out, "generator's share of the CPU", level, c -> String.format(Locale.ROOT, "%.0f %%",
            c.median().cpu().generatorShare() * 100));
        row(out, "JIT compiling while measured, s/s", level, c -> String.format(Locale.ROOT, "%.2f",
            c.median().cpu().compiling()));
      }
      if (level.stream().allMatch(c -> c.median().hosts() != null)) {
        hostRow(out, "MariaDB statements /op", level, "%.2f", HostWork::statements);
        hostRow(out, "MariaDB statements prepared /op", level, "%.3f", HostWork::prepares);
        hostRow(out, "InnoDB page reads from disk /op", level, "%.3f", HostWork::pageReads);
        hostRow(out, "InnoDB fsyncs /op", level, "%.3f", HostWork::fsyncs);
        hostRow(out, "InnoDB row lock waits /op", level, "%.4f", HostWork::lockWaits);
        hostRow(out, "InnoDB row lock ms waited /op", level, "%.3f", HostWork::lockWaitMs);
        hostRow(out, "InnoDB deadlocks /op", level, "%.4f", HostWork::deadlocks);
      }
      row(out, "failures (5xx)", level, c -> Long.toString(c.runs().stream().mapToLong(Measured::failures).sum()));
      for (Column column : level) {
        if (column.target().equals("bare-vertx")) {
          continue;
        }
        Measured measured = column.median();
        out.append(String.format("%n%s, %d callers, per operation%s%n%n", measured.target(), concurrency,
            runs > 1 ? " (the median run, " + measured.run() + ")" : ""));
        out.append("| operation | count | ops/s | p50 ms | p95 ms | p99 ms | p99.9 ms |\n|---|---:|---:|---:|---:|---:|---:|\n");
        for (Operation operation : Operation.values()) {
          Histogram h = measured.recording().latencies(operation);
          out.append(String.format(Locale.ROOT, "| %s | %d | %.0f | %.2f | %.2f | %.2f | %.2f |%n",
              operation.name().toLowerCase(Locale.ROOT), h.getTotalCount(), h.getTotalCount() / measured.seconds(),
              h.getValueAtPercentile(50) / 1000.0, h.getValueAtPercentile(95) / 1000.0,
              h.getValueAtPercentile(99) / 1000.0, h.getValueAtPercentile(99.9) / 1000.0));
        }
      }
    }
    notes.forEach(note -> out.append('\n').append(note).append('\n'));
    return out.toString();
  }

  /** The targets measured at one concurrency, in {@link #COLUMNS} order, each with its runs. */
  private List<Column> columns(int concurrency) {
    // Quiver first, other builds of it next (quiver-LABEL, by label), then the rest in the columns' order.
    Map<String, List<Measured>> byTarget = new TreeMap<>(Comparator.comparingInt((String target) ->
        COLUMNS.contains(target) ? 2 * COLUMNS.indexOf(target) : 1).thenComparing(target -> target));
    results.stream().filter(m -> m.concurrency() == concurrency)
        .forEach(m -> byTarget.computeIfAbsent(m.target(), target -> new ArrayList<>()).add(m));
    List<Column> columns = new ArrayList<>();
    byTarget.forEach((target, runs) -> columns.add(new Column(target, runs)));
    return columns;
  }

  private interface Figure {
    String of(Column column);
  }

  /** A row of one of the hosts' figures per operation, each column's median run's. */
  private static void hostRow(StringBuilder out, String label, List<Column> level, String format,
      ToDoubleFunction<HostWork> figure) {
    row(out, label, level, c -> String.format(Locale.ROOT, format, figure.applyAsDouble(c.median().hosts())));
  }

  private static void row(StringBuilder out, String name, List<Column> level, Figure figure) {
    out.append("| ").append(name).append(" | ");
    level.forEach(column -> out.append(figure.of(column)).append(" | "));
    out.append('\n');
  }

  private static String trim(double percentile) {
    return percentile == Math.rint(percentile) ? Integer.toString((int) percentile) : Double.toString(percentile);
  }

  void write(Path file, WorkloadOptions options) throws IOException {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode root = mapper.createObjectNode();
    root.put("nodes", options.nodes());
    root.put("warmupSeconds", options.warmup().toSeconds());
    root.put("measureSeconds", options.measure().toSeconds());
    root.put("cores", Runtime.getRuntime().availableProcessors());
    root.put("runsPerTarget", options.runs());
    ArrayNode runs = root.putArray("runs");
    for (Measured measured : results) {
      ObjectNode run = runs.addObject();
      run.put("target", measured.target());
      run.put("concurrency", measured.concurrency());
      run.put("run", measured.run());
      if (measured.sustained() != null) {
        run.put("sustainedOpsPerSecond", measured.sustained());
      }
      run.put("seconds", measured.seconds());
      run.put("opsPerSecond", measured.opsPerSecond());
      if (measured.cpu() != null) {
        ObjectNode cpu = run.putObject("cpuMillisPerOperation");
        cpu.put("mariaDb", measured.cpu().database());
        cpu.put("servers", measured.cpu().servers());
        cpu.put("generator", measured.cpu().generator());
        run.put("generatorCpuShare", measured.cpu().generatorShare());
        if (!Double.isNaN(measured.cpu().compiling())) {
          run.put("jitCompilingSecondsPerSecond", measured.cpu().compiling());
        }
      }
      if (!measured.hitRatios().isEmpty()) {
        ObjectNode ratios = run.putObject("hitRatios");
        new java.util.TreeMap<>(measured.hitRatios()).forEach(ratios::put);
      }
      if (measured.countsAgree() != null) {
        run.put("countsAgree", measured.countsAgree());
      }
      if (measured.hosts() != null) {
        ObjectNode disk = run.putObject("innoDbPerOperation");
        disk.put("pageReadsFromDisk", measured.hosts().pageReads());
        disk.put("fsyncs", measured.hosts().fsyncs());
        disk.put("rowLockWaits", measured.hosts().lockWaits());
        disk.put("rowLockMsWaited", measured.hosts().lockWaitMs());
        disk.put("deadlocks", measured.hosts().deadlocks());
        run.put("statementsPerOperation", measured.hosts().statements());
        run.put("statementsPreparedPerOperation", measured.hosts().prepares());
      }
      ObjectNode operations = run.putObject("operations");
      for (Operation operation : Operation.values()) {
        Histogram h = measured.recording().latencies(operation);
        ObjectNode op = operations.putObject(operation.name().toLowerCase(Locale.ROOT));
        op.put("count", h.getTotalCount());
        op.put("failures", measured.recording().failures(operation));
        op.put("p50Micros", h.getValueAtPercentile(50));
        op.put("p95Micros", h.getValueAtPercentile(95));
        op.put("p99Micros", h.getValueAtPercentile(99));
        op.put("p999Micros", h.getValueAtPercentile(99.9));
        op.put("maxMicros", h.getMaxValue());
      }
    }
    ArrayNode notesJson = root.putArray("notes");
    notes.forEach(notesJson::add);
    Files.createDirectories(file.toAbsolutePath().getParent());
    mapper.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
  }
}
