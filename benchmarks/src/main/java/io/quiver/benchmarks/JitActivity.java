package io.quiver.benchmarks;

import java.time.Duration;
import java.util.Optional;

/**
 * How much a JVM's just-in-time compiler has done so far, read from outside it with the JDK's
 * {@code jstat -compiler}: how the workload shows that a warm-up was long enough — a server whose
 * compiler is still busy during a measured phase is measuring the compiler.
 *
 * @param compiled methods compiled so far
 * @param seconds time spent compiling so far
 */
public record JitActivity(long compiled, double seconds) {
  /** A warm-up step's length: the benchmarks warm up in steps of this until the JIT has settled. */
  public static final Duration STEP = Duration.ofSeconds(5);
  /** The most methods a JIT may compile in one {@link #STEP} and count as settled. */
  public static final int SETTLED_METHODS = 20;
  /**
   * The most time a JIT may spend compiling in one {@link #STEP} and count as settled: 5 % of one
   * core. A count alone let a server through that compiled 13 methods in its last step and then
   * spent 5 of the 20 measured seconds compiling (C2 takes seconds over one large method, such as
   * a table's multi-row write, on this busy 2-core machine), CPU the server's figures then carried.
   */
  public static final double SETTLED_SECONDS = 0.25;

  /**
   * Whether the compiler, over the {@code steps} warm-up steps between {@code earlier} and this
   * reading, did little enough to count as settled: fewer than {@value #SETTLED_METHODS} methods
   * and less than {@value #SETTLED_SECONDS} s of compiling a step.
   */
  public boolean settledSince(JitActivity earlier, int steps) {
    JitActivity step = since(earlier);
    return step.compiled < (long) SETTLED_METHODS * steps && step.seconds < SETTLED_SECONDS * steps;
  }

  /** What the compiler did between {@code earlier} and this reading. */
  public JitActivity since(JitActivity earlier) {
    return new JitActivity(compiled - earlier.compiled, seconds - earlier.seconds);
  }

  /** The process's reading, or empty where the JDK has no {@code jstat} or the process has ended. */
  public static Optional<JitActivity> of(ProcessHandle process) {
    // Compiled Failed Invalid Time FailedType FailedMethod
    return Jstat.read(process, "-compiler", columns ->
        new JitActivity(Long.parseLong(columns.get("Compiled")), Double.parseDouble(columns.get("Time"))));
  }
}
