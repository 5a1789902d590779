package io.quiver.fleet;

import java.time.Duration;

/**
 * How the fleet watches the primaries of hosts with replicas and fails one over.
 *
 * @param enabled whether this process takes part in electing the coordinator (servers do; tools
 *     and the dev stack's provisioning do not)
 * @param detectAfter how long a primary may not answer (refused, or silent: a frozen host counts)
 *     before it is failed over; default 3 s
 * @param probeEvery how often the coordinator asks each replicated primary {@code SELECT 1};
 *     default 500 ms
 * @param fenceTimeout how long a failover waits for every server to stop writing to the host's
 *     shards before it promotes anyway (the old primary is gone or fenced); default 2 s. A frozen
 *     primary's writes in flight never end, so its failover always waits this long
 */
public record FailoverSettings(boolean enabled, Duration detectAfter, Duration probeEvery, Duration fenceTimeout) {
  public static final Duration DEFAULT_DETECT_AFTER = Duration.ofSeconds(3);
  public static final Duration DEFAULT_PROBE_EVERY = Duration.ofMillis(500);
  public static final Duration DEFAULT_FENCE_TIMEOUT = Duration.ofSeconds(2);

  public FailoverSettings {
    for (Duration given : new Duration[] {detectAfter, probeEvery, fenceTimeout}) {
      if (given == null || given.isNegative() || given.isZero()) {
        throw new IllegalArgumentException("failover durations must be positive, got " + given);
      }
    }
    if (probeEvery.compareTo(detectAfter) > 0) {
      throw new IllegalArgumentException("failover.probeEveryMs (" + probeEvery.toMillis()
          + ") must not exceed failover.detectAfterMs (" + detectAfter.toMillis() + ")");
    }
  }

  /** A server's: enabled, with the defaults. */
  public static FailoverSettings defaults() {
    return new FailoverSettings(true, DEFAULT_DETECT_AFTER, DEFAULT_PROBE_EVERY, DEFAULT_FENCE_TIMEOUT);
  }

  /** A tool's: this process never coordinates failovers. */
  public static FailoverSettings disabled() {
    return new FailoverSettings(false, DEFAULT_DETECT_AFTER, DEFAULT_PROBE_EVERY, DEFAULT_FENCE_TIMEOUT);
  }
}
