package io.quiver.core.testing;

import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;

/**
 * A wall clock the test sets and moves, counting how often it is read: for code that is handed a
 * {@link Clock}, so that no test waits for time to pass.
 */
public final class TestClock extends Clock {
  private Instant now;
  private int reads;

  public TestClock(Instant start) {
    this.now = start;
  }

  /** Moves the clock on by {@code by}. */
  public void advance(Duration by) {
    now = now.plus(by);
  }

  /** Sets the clock to {@code to}: a step, as NTP may make. */
  public void set(Instant to) {
    now = to;
  }

  /** How often {@link #instant} has been read. */
  public int reads() {
    return reads;
  }

  @Override
  public ZoneId getZone() {
    return ZoneOffset.UTC;
  }

  @Override
  public Clock withZone(ZoneId zone) {
    return this;
  }

  @Override
  public Instant instant() {
    reads++;
    return now;
  }
}
