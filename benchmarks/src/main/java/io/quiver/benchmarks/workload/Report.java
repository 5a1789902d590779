package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import org.HdrHistogram.Histogram;

/** The results of a run: a table per concurrency level with a column per target and its ratio to Quiver. */
final class Report {
  record Measured(String target, int concurrency, double seconds, Recording recording) {
    double opsPerSecond() {
      return recording.all().getTotalCount() / seconds;
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

  List<Measured> results() {
    return List.copyOf(results);
  }

  String table() {
    StringBuilder out = new StringBuilder();
    for (int concurrency : results.stream().map(Measured::concurrency).distinct().toList()) {
      List<Measured> level = results.stream().filter(m -> m.concurrency() == concurrency).toList();
      Measured quiver = level.stream().filter(m -> m.target().equals("quiver")).findFirst().orElse(level.get(0));
      out.append(rate == null
          ? String.format("%n%d callers (closed loop; latency in ms over all operations)%n%n", concurrency)
          : String.format("%nopen loop at %d operations a second (latency in ms from each scheduled start)%n%n", rate));
      out.append("| | ");
      level.forEach(m -> out.append(m.target()).append(" | "));
      out.append("\n|---|");
      level.forEach(m -> out.append("---:|"));
      out.append('\n');
      row(out, "ops/s", level, m -> m.opsPerSecond(), "%.0f");
      row(out, "ops/s ÷ quiver", level, m -> m.opsPerSecond() / quiver.opsPerSecond(), "%.2f");
      for (double percentile : new double[] {50, 95, 99, 99.9}) {
        row(out, "p" + trim(percentile), level, m -> m.recording().all().getValueAtPercentile(percentile) / 1000.0,
            "%.2f");
      }
      row(out, "p99 ÷ quiver", level, m -> (double) m.recording().all().getValueAtPercentile(99)
          / Math.max(1, quiver.recording().all().getValueAtPercentile(99)), "%.2f");
      row(out, "failures (5xx)", level,
          m -> (double) List.of(Operation.values()).stream().mapToLong(m.recording()::failures).sum(), "%.0f");
      for (Measured measured : level) {
        if (measured.target().equals("bare-vertx")) {
          continue;
        }
        out.append(String.format("%n%s, %d callers, per operation%n%n", measured.target(), concurrency));
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

  private interface Figure {
    double of(Measured measured);
  }

  private static void row(StringBuilder out, String name, List<Measured> level, Figure figure, String format) {
    out.append("| ").append(name).append(" | ");
    level.forEach(m -> out.append(String.format(Locale.ROOT, format, figure.of(m))).append(" | "));
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
    ArrayNode runs = root.putArray("runs");
    for (Measured measured : results) {
      ObjectNode run = runs.addObject();
      run.put("target", measured.target());
      run.put("concurrency", measured.concurrency());
      run.put("seconds", measured.seconds());
      run.put("opsPerSecond", measured.opsPerSecond());
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
      }
    }
    ArrayNode notesJson = root.putArray("notes");
    notes.forEach(notesJson::add);
    Files.createDirectories(file.toAbsolutePath().getParent());
    mapper.writerWithDefaultPrettyPrinter().writeValue(file.toFile(), root);
  }
}
