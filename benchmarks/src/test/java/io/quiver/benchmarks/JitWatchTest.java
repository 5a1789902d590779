package io.quiver.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** A warm-up counts its JIT settled after four quiet steps in a row (20 s, a measured phase), not fewer. */
class JitWatchTest {

  @Test
  void threeQuietSteps_areNotEnough_fourInARowAre() {
    JitWatch watch = new JitWatch(new JitActivity(1_000, 10.0));

    assertThat(watch.settledAfter(new JitActivity(1_010, 10.1), 1)).as("one quiet step").isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_015, 10.2), 1)).as("two: fooled by C2's waves under LinkBench")
        .isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_020, 10.3), 1)).as("three").isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_025, 10.4), 1)).as("the fourth in a row").isTrue();
    assertThat(watch.lastStep().compiled()).as("the last step's methods, for the report").isEqualTo(5);
    assertThat(watch.lastStep().seconds()).isCloseTo(0.1, within(1e-9));
  }

  @Test
  void aBurstBetweenQuietSteps_startsTheCountAgain() {
    JitWatch watch = new JitWatch(new JitActivity(1_000, 10.0));

    assertThat(watch.settledAfter(new JitActivity(1_010, 10.1), 1)).isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_020, 12.5), 1)).as("C2 spends 2.4 s on a large method").isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_025, 12.6), 1)).as("quiet again, once").isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_026, 12.6), 1)).isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_027, 12.7), 1)).isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_028, 12.7), 1)).isTrue();
  }
}
