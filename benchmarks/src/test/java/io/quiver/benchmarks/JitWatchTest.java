package io.quiver.benchmarks;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import org.junit.jupiter.api.Test;

/** A warm-up counts its JIT settled after two quiet steps in a row, not one. */
class JitWatchTest {

  @Test
  void oneQuietStep_isNotEnough_twoInARowAre() {
    JitWatch watch = new JitWatch(new JitActivity(1_000, 10.0));

    assertThat(watch.settledAfter(new JitActivity(1_010, 10.1), 1)).as("one quiet step").isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_015, 10.2), 1)).as("the second in a row").isTrue();
    assertThat(watch.lastStep().compiled()).as("the last step's methods, for the report").isEqualTo(5);
    assertThat(watch.lastStep().seconds()).isCloseTo(0.1, within(1e-9));
  }

  @Test
  void aBurstBetweenQuietSteps_startsTheCountAgain() {
    JitWatch watch = new JitWatch(new JitActivity(1_000, 10.0));

    assertThat(watch.settledAfter(new JitActivity(1_010, 10.1), 1)).isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_020, 12.5), 1)).as("C2 spends 2.4 s on a large method").isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_025, 12.6), 1)).as("quiet again, once").isFalse();
    assertThat(watch.settledAfter(new JitActivity(1_026, 12.6), 1)).isTrue();
  }
}
