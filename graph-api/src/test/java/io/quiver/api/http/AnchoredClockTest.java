package io.quiver.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.TestClock;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** The access log's clock: a line's time from its request's end on {@code nanoTime}, the wall clock read only when anchored. */
class AnchoredClockTest {
  private static final Instant NOON = Instant.parse("2026-11-27T12:00:00Z");

  @Test
  void aReadingsTime_isTheAnchorsWallTime_plusTheNanosSince_withoutReadingTheWallClockAgain() {
    TestClock wall = new TestClock(NOON);
    AnchoredClock clock = new AnchoredClock(wall, 5_000_000_000L);

    assertThat(clock.at(5_000_001_500L)).isEqualTo(NOON.plusNanos(1_500));
    assertThat(clock.at(5_250_000_000L)).isEqualTo(NOON.plusMillis(250));
    assertThat(clock.at(4_999_999_000L)).as("a request that ended just before the anchor").isEqualTo(NOON.minusNanos(1_000));
    assertThat(wall.reads()).as("wall-clock reads").isEqualTo(1);
  }

  @Test
  void reanchoring_takesTheWallClockAgain_soAStepOfItShowsInTheNextLines() {
    TestClock wall = new TestClock(NOON);
    AnchoredClock clock = new AnchoredClock(wall, 0);

    wall.set(NOON.plusSeconds(3));
    assertThat(clock.at(100_000_000L)).as("before the anchor is taken again").isEqualTo(NOON.plusMillis(100));
    clock.anchor(100_000_000L);
    assertThat(clock.at(100_000_000L)).isEqualTo(NOON.plusSeconds(3));
    assertThat(clock.at(200_000_000L)).isEqualTo(NOON.plusSeconds(3).plusMillis(100));
  }
}
