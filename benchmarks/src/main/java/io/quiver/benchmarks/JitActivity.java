package io.quiver.benchmarks;

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
