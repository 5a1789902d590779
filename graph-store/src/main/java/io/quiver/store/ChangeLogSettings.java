package io.quiver.store;

import io.quiver.core.GraphException;
import java.time.Duration;

/**
 * Whether every shard keeps a durable log of its changes ({@link ChangeLog}), where it is written
 * from, and for how long.
 *
 * @param enabled whether changes are logged; off, nothing is logged and the log answers what it held
 * @param retention how long a change is kept; older ones are trimmed in the background
 * @param maxPerShard the most changes one shard keeps, whatever their age: the size bound
 * @param trimEvery how often each host's logs are trimmed
 * @param source where the log is written from (default {@link Source#WRITES})
 */
public record ChangeLogSettings(boolean enabled, Duration retention, long maxPerShard, Duration trimEvery,
    Source source) {
  public static final Duration DEFAULT_RETENTION = Duration.ofDays(7);
  public static final long DEFAULT_MAX_PER_SHARD = 10_000_000;
  public static final Duration DEFAULT_TRIM_EVERY = Duration.ofMinutes(1);

  /** Where each change's row in the log comes from. */
  public enum Source {
    /**
     * The write itself: each write inserts its changes' rows in its own transaction (one more
     * INSERT each), and its host's drainer numbers them a pass later.
     */
    WRITES,
    /**
     * The host's binary log: a tailer per host (on the server that drains the host's outboxes)
     * reads every committed transaction's rows there and writes their changes' rows, numbered, a
     * batch at a time; a write inserts none. Every server of a fleet must use the same source.
     * A host's replicas must then log what they apply ({@code log_slave_updates}): promoted, a
     * replica's binary log is where the tailer resumes (docs/operations.md, "The change log").
     */
    BINARY_LOG
  }

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
    source = source == null ? Source.WRITES : source;
  }

  /** Written from the writes ({@link Source#WRITES}). */
  public ChangeLogSettings(boolean enabled, Duration retention, long maxPerShard, Duration trimEvery) {
    this(enabled, retention, maxPerShard, trimEvery, Source.WRITES);
  }

  /** These settings with the log written from {@code source}. */
  public ChangeLogSettings from(Source source) {
    return new ChangeLogSettings(enabled, retention, maxPerShard, trimEvery, source);
  }

  /** Whether writes insert their changes' rows themselves: logged, from the writes. */
  public boolean writtenByWrites() {
    return enabled && source == Source.WRITES;
  }

  /** Whether a tailer per host writes the log from the binary log: logged, from the binary log. */
  public boolean tailed() {
    return enabled && source == Source.BINARY_LOG;
  }

  public static ChangeLogSettings defaults() {
    return new ChangeLogSettings(true, DEFAULT_RETENTION, DEFAULT_MAX_PER_SHARD, DEFAULT_TRIM_EVERY);
  }

  /** No change logged. */
  public static ChangeLogSettings disabled() {
    return new ChangeLogSettings(false, DEFAULT_RETENTION, DEFAULT_MAX_PER_SHARD, DEFAULT_TRIM_EVERY);
  }
}
