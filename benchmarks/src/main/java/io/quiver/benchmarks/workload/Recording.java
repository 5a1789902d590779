package io.quiver.benchmarks.workload;

import java.util.EnumMap;
import java.util.Map;
import org.HdrHistogram.Histogram;

/** Latencies (microseconds) and outcomes per operation, for one measured phase. */
final class Recording {
  private final Map<Operation, Histogram> latencies = new EnumMap<>(Operation.class);
  private final Map<Operation, long[]> outcomes = new EnumMap<>(Operation.class);

  Recording() {
    for (Operation operation : Operation.values()) {
      latencies.put(operation, new Histogram(60_000_000L, 3));
      outcomes.put(operation, new long[2]);
    }
  }

  /** @param failed a 5xx answer or no answer at all (4xx answers are outcomes of the mix, as in LinkBench) */
  void record(Operation operation, long micros, boolean failed) {
    Histogram histogram = latencies.get(operation);
    synchronized (histogram) {
      histogram.recordValue(Math.max(1, Math.min(micros, 60_000_000L)));
      outcomes.get(operation)[failed ? 1 : 0]++;
    }
  }

  Histogram latencies(Operation operation) {
    return latencies.get(operation);
  }

  long count(Operation operation) {
    long[] counts = outcomes.get(operation);
    return counts[0] + counts[1];
  }

  long failures(Operation operation) {
    return outcomes.get(operation)[1];
  }

  Histogram all() {
    Histogram merged = new Histogram(60_000_000L, 3);
    latencies.values().forEach(merged::add);
    return merged;
  }
}
