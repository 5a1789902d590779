package io.quiver.store;

import io.quiver.core.GraphException;
import java.time.Duration;

/**
 * How a read carrying a {@link ReadToken} waits for the writes it covers ({@link GraphStore#settle}).
 *
 * @param bound how long it keeps trying to apply a covered write's inverse copy whose host cannot
 *     take it before it answers UNAVAILABLE instead of an older answer (default {@link #DEFAULT_BOUND})
 */
public record ReadTokenSettings(Duration bound) {
  public static final Duration DEFAULT_BOUND = Duration.ofSeconds(1);

  public ReadTokenSettings {
    if (bound == null || bound.isNegative() || bound.isZero() || bound.compareTo(Duration.ofMinutes(1)) > 0) {
      throw GraphException.invalid("a read token's bound must be within (0, 60 s], got " + bound);
    }
  }

  public static ReadTokenSettings defaults() {
    return new ReadTokenSettings(DEFAULT_BOUND);
  }
}
