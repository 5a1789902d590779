package io.quiver.benchmarks;

import java.util.Optional;

/**
 * How much a JVM's garbage collector has stopped it so far, read from outside it with the JDK's
 * {@code jstat -gc} (as {@link JitActivity} reads the compiler): every stop-the-world pause —
 * young, full, and the pauses of concurrent cycles — and their time. A measured phase's pauses
 * show where a latency tail comes from: a pause holds every request in flight.
 *
 * @param pauses pauses so far
 * @param seconds time spent in them so far
 */
public record GcActivity(long pauses, double seconds) {

  /** What the collector did between {@code earlier} and this reading. */
  public GcActivity since(GcActivity earlier) {
    return new GcActivity(pauses - earlier.pauses, seconds - earlier.seconds);
  }

  /** The mean pause in milliseconds; 0 without any. */
  public double meanPauseMillis() {
    return pauses == 0 ? 0 : seconds * 1000 / pauses;
  }

  /** The process's reading, or empty where the JDK has no {@code jstat} or the process has ended. */
  public static Optional<GcActivity> of(ProcessHandle process) {
    return Jstat.read(process, "-gc", columns -> {
      long pauses = 0;
      for (String count : new String[] {"YGC", "FGC", "CGC"}) {
        String value = columns.getOrDefault(count, "-");
        pauses += value.equals("-") ? 0 : Long.parseLong(value);
      }
      return new GcActivity(pauses, Double.parseDouble(columns.get("GCT")));
    });
  }
}
