package io.quiver.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** When a warm-up counts a JIT as settled: few methods compiled in a step, and little time spent compiling them. */
class JitActivityTest {
  private static final JitActivity EARLIER = new JitActivity(5_000, 60.0);

  @Test
  void aStepWithFewMethodsAndLittleCompiling_isSettled() {
    assertThat(new JitActivity(5_012, 60.1).settledSince(EARLIER, 1)).isTrue();
  }

  @Test
  void aStepWithFewMethodsThatTookSecondsToCompile_isNotSettled() {
    assertThat(new JitActivity(5_013, 62.0).settledSince(EARLIER, 1))
        .as("13 methods, 2 s of compiling: one large method in C2").isFalse();
  }

  @Test
  void aStepWithManyQuickMethods_isNotSettled() {
    assertThat(new JitActivity(5_020, 60.1).settledSince(EARLIER, 1)).isFalse();
  }

  @Test
  void overSeveralSteps_theBoundsGrowWithTheSteps() {
    assertThat(new JitActivity(5_070, 60.9).settledSince(EARLIER, 4)).isTrue();
    assertThat(new JitActivity(5_070, 61.1).settledSince(EARLIER, 4)).isFalse();
  }
}
