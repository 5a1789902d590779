package io.quiver.api.http;

import java.time.Clock;
import java.time.Instant;

/**
 * The wall-clock time of a {@link System#nanoTime} reading, without reading the wall clock: a
 * wall-clock reading and a {@code nanoTime} reading taken together (the anchor), and the time
 * that has passed since on {@code nanoTime}. The access log stamps every line with its request's
 * end; reading {@link Clock#instant} for each (a call into the VM, then the operating system's
 * clock) was 2 % of a cached read's CPU in a profile of {@code ./bench hot}, while the request's
 * latency already took a {@code nanoTime} at its end. Re-anchored on the access log's flush timer,
 * every 100 ms, so a step of the wall clock (NTP) shows in the lines within that.
 *
 * <p>Not thread-safe: one instance per event loop, as {@link AccessLog}.
 */
final class AnchoredClock {
  private final Clock clock;
  private Instant anchorTime;
  private long anchorNanos;

  AnchoredClock(Clock clock, long nanosNow) {
    this.clock = clock;
    anchor(nanosNow);
  }

  /** Takes the wall clock again, together with {@code nanosNow}, a {@code nanoTime} reading taken now. */
  void anchor(long nanosNow) {
    anchorTime = clock.instant();
    anchorNanos = nanosNow;
  }

  /** The wall-clock time at which {@code System.nanoTime()} read {@code nanos}. */
  Instant at(long nanos) {
    return anchorTime.plusNanos(nanos - anchorNanos);
  }
}
