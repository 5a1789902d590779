package io.quiver.store;

import io.quiver.core.GraphException;
import java.time.Duration;

/**
 * Whether every shard keeps a durable log of its changes ({@link ChangeLog}), and for how long.
 *
 * @param enabled whether writes log their changes (in their own transaction: one more INSERT each);
 *     off, nothing is logged and the log answers what it held
 * @param retention how long a change is kept; older ones are trimmed in the background
 * @param maxPerShard the most changes one shard keeps, whatever their age: the size bound
 * @param trimEvery how often each host's logs are trimmed
 */
public record ChangeLogSettings(boolean enabled, Duration retention, long maxPerShard, Duration trimEvery) {
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
  public static final long DEFAULT_MAX_PER_SHARD = 10_000_000;
  public static final Duration DEFAULT_TRIM_EVERY = Duration.ofMinutes(1);

  public ChangeLogSettings {
    if (retention == null || retention.toSeconds() < 1) {
      throw GraphException.invalid("the change log's retention must be at least a second, got " + retention);
    }
    if (trimEvery == null || trimEvery.toMillis() < 10) {
      throw GraphException.invalid("the change log's trimEvery must be at least 10 ms, got " + trimEvery);
    }
    if (maxPerShard < 1) {
      throw GraphException.invalid("the change log's maxPerShard must be positive, got " + maxPerShard);
    }
  }

  public static ChangeLogSettings defaults() {
    return new ChangeLogSettings(true, DEFAULT_RETENTION, DEFAULT_MAX_PER_SHARD, DEFAULT_TRIM_EVERY);
  }

  /** No change logged. */
  public static ChangeLogSettings disabled() {
    return new ChangeLogSettings(false, DEFAULT_RETENTION, DEFAULT_MAX_PER_SHARD, DEFAULT_TRIM_EVERY);
  }
}
