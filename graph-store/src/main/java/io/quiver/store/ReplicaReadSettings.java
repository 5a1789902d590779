package io.quiver.store;

import io.quiver.core.GraphException;
import java.time.Duration;

/**
 * How reads that tolerate bounded staleness ({@link GraphStore#staleTolerant()}) use a host's
 * replicas. Reads that do not say so never touch a replica.
 *
 * @param maxLag the most a replica may lag behind its primary and still answer: a read it answers
 *     reflects every write its primary acknowledged before {@code maxLag} ago. Lag is measured by
 *     this server's own probes, never by {@code Seconds_Behind_Master} (see {@code ReplicaLag})
 * @param hedgeAfter how long a stale-tolerant read waits for the primary before the same read is
 *     also sent to a replica within {@code maxLag}; the first answer wins. A primary that fails
 *     such a read, or is down, is not waited for at all
 * @param probeEvery how often each primary's GTID position and each replica's applied and received
 *     positions are read; lag is known to within about twice this
 * @param poolSize connections per replica, for the reads it answers
 */
public record ReplicaReadSettings(Duration maxLag, Duration hedgeAfter, Duration probeEvery, int poolSize) {
  public static final Duration DEFAULT_MAX_LAG = Duration.ofSeconds(1);
  /** Several times a loaded primary's usual answer on a LAN, as Pinterest's speculative reads wait for the p9x. */
  public static final Duration DEFAULT_HEDGE_AFTER = Duration.ofMillis(50);
  public static final Duration DEFAULT_PROBE_EVERY = Duration.ofMillis(100);
  public static final int DEFAULT_POOL_SIZE = 8;

  public ReplicaReadSettings {
    requireAtLeast("maxLag", maxLag, 1);
    requireAtLeast("hedgeAfter", hedgeAfter, 0);
    requireAtLeast("probeEvery", probeEvery, 10);
    if (probeEvery.compareTo(maxLag) >= 0) {
      throw GraphException.invalid("probeEvery (" + probeEvery.toMillis() + " ms) must be shorter than maxLag ("
          + maxLag.toMillis() + " ms): no replica could ever be known within it");
    }
    if (poolSize < 1) {
      throw GraphException.invalid("poolSize must be positive, got " + poolSize);
    }
  }

  public static ReplicaReadSettings defaults() {
    return new ReplicaReadSettings(DEFAULT_MAX_LAG, DEFAULT_HEDGE_AFTER, DEFAULT_PROBE_EVERY, DEFAULT_POOL_SIZE);
  }

  private static void requireAtLeast(String name, Duration value, long leastMs) {
    if (value == null || value.toMillis() < leastMs) {
      throw GraphException.invalid(name + " must be at least " + leastMs + " ms, got "
          + (value == null ? null : value.toMillis() + " ms"));
    }
  }
}
