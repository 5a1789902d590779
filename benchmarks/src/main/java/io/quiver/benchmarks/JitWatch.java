package io.quiver.benchmarks;

/**
 * A JVM's compiler watched over a warm-up's steps: settled once {@value #QUIET_STEPS} steps in a
 * row were quiet ({@link JitActivity#settledSince}). One quiet step was not enough: C2's work
 * comes in bursts, and in the first run of a mix (the servers start cold) a step with 10–13
 * methods in 0.1–0.17 s of compiling was followed by 1.2–3.4 s of compiling in the 20 measured
 * seconds (writes, LinkBench and TAO at {@code 5908828}).
 */
public final class JitWatch {
  /** Quiet steps in a row that count as settled. */
  public static final int QUIET_STEPS = 2;

  private JitActivity last;
  private JitActivity lastStep = new JitActivity(0, 0);
  private int quiet;

  /** Starts watching from {@code start}, a reading taken before the first step. */
  public JitWatch(JitActivity start) {
    this.last = start;
  }

  /**
   * Takes the reading after a step of {@code steps} {@link JitActivity#STEP}s (one per case the
   * step warmed): whether the compiler has now been quiet for {@value #QUIET_STEPS} in a row.
   */
  public boolean settledAfter(JitActivity now, int steps) {
    quiet = now.settledSince(last, steps) ? quiet + 1 : 0;
    lastStep = now.since(last);
    last = now;
    return quiet >= QUIET_STEPS;
  }

  /** What the compiler did in the last step, for the report. */
  public JitActivity lastStep() {
    return lastStep;
  }
}
