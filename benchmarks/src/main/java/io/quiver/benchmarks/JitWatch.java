package io.quiver.benchmarks;

/**
 * A JVM's compiler watched over a warm-up's steps: settled once {@value #QUIET_STEPS} steps in a
 * row were quiet ({@link JitActivity#settledSince}) — a stretch as long as a measured phase (20 s),
 * so that a wave of compiling that would fall inside the measurement falls inside the stretch.
 *
 * <p>Why so long. One quiet step was not enough: C2's work comes in bursts, and in the first run of
 * a mix (the servers start cold) a step with 10–13 methods in 0.1–0.17 s of compiling was followed
 * by 1.2–3.4 s of compiling in the 20 measured seconds (writes, LinkBench and TAO at {@code
 * 5908828}). Two were not either: on this saturated 2-core machine tiered compilation runs behind
 * by minutes (its thresholds grow with the compilers' queues, so methods keep reaching them long
 * after the load began), and under LinkBench's mix a Quiver server was quiet for two steps at
 * 165 s and then compiled 0.44 s a second while measured ({@code 6635f47}).
 */
public final class JitWatch {
  /** Quiet steps in a row that count as settled: 20 s, a measured phase's default length. */
  public static final int QUIET_STEPS = 4;

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
