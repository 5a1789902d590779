package io.quiver.benchmarks.workload;

import io.vertx.core.Future;
import java.util.Arrays;

/**
 * A target whose node reads are written down in order — the trace its node cache saw — so the
 * report can set the cache's measured hit ratio beside the best possible for that trace
 * ({@link BestPossible}). The trace restarts with each warm-up; {@link #measuring} marks where the
 * measured phase begins.
 */
final class TracingTarget implements Target {
  private final Target target;
  private long[] trace = new long[1 << 16];
  private int length;
  private int measuredFrom;

  TracingTarget(Target target) {
    this.target = target;
  }

  @Override
  public String name() {
    return target.name();
  }

  @Override
  public Future<Integer> execute(Call call) {
    if (call.operation() == Operation.GET_NODE) {
      record(call.from());
    }
    return target.execute(call);
  }

  private synchronized void record(long node) {
    if (length == trace.length) {
      trace = Arrays.copyOf(trace, length * 2);
    }
    trace[length++] = node;
  }

  /** Forgets the trace: a warm-up begins. */
  synchronized void restart() {
    length = 0;
    measuredFrom = 0;
  }

  /** The measured phase begins here. */
  synchronized void measuring() {
    measuredFrom = length;
  }

  /** The best possible node hit ratio over the measured phase, for a cache of {@code capacity} nodes. */
  synchronized double bestHitRatio(int capacity) {
    return BestPossible.hitRatio(Arrays.copyOf(trace, length), measuredFrom, capacity);
  }

  /** The best fixed cache's node hit ratio over the measured phase ({@link BestPossible#pinnedHitRatio}). */
  synchronized double pinnedHitRatio(int capacity) {
    return BestPossible.pinnedHitRatio(Arrays.copyOf(trace, length), measuredFrom, capacity);
  }

  /** Node reads traced in the measured phase. */
  synchronized int measuredLookups() {
    return length - measuredFrom;
  }

  @Override
  public void close() {
    target.close();
  }
}
