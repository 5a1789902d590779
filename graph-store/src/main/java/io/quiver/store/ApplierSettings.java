package io.quiver.store;

import io.quiver.core.GraphException;
import java.time.Duration;

/**
 * How the inverse applier drains outboxes.
 *
 * @param leasePath the ZooKeeper path under which servers hold one lease per host
 * @param batchSize entries read from one shard's outbox per pass
 * @param idleDelay pause between passes that found nothing to do
 * @param maxAttempts failures (other than an unavailable host) before an entry is parked
 * @param maxBackoff the longest wait before retrying an entry
 * @param tombstoneGrace how long a tombstone is kept; it must outlast the longest time an
 *     operation can wait in an outbox, or a late add could resurrect a removed edge
 * @param gcInterval how often tombstones past their grace are collected
 * @param busyPause pause after a pass that found work, which a write's wake does not cut short:
 *     on a busy host the entries of this long gather into one pass, whose batches share
 *     transactions, instead of a pass starting at every wake. An inverse then follows its write
 *     within this pause and a pass; zero starts the next pass at once
 */
public record ApplierSettings(
    String leasePath,
    int batchSize,
    Duration idleDelay,
    int maxAttempts,
    Duration maxBackoff,
    Duration tombstoneGrace,
    Duration gcInterval,
    Duration busyPause) {

  public static final String DEFAULT_LEASE_PATH = "/quiver/outbox-leases";
  public static final int DEFAULT_BATCH_SIZE = 200;
  public static final Duration DEFAULT_IDLE_DELAY = Duration.ofSeconds(1);
  public static final int DEFAULT_MAX_ATTEMPTS = 10;
  public static final Duration DEFAULT_MAX_BACKOFF = Duration.ofSeconds(30);
  public static final Duration DEFAULT_TOMBSTONE_GRACE = Duration.ofDays(7);
  public static final Duration DEFAULT_GC_INTERVAL = Duration.ofMinutes(5);
  public static final Duration DEFAULT_BUSY_PAUSE = Duration.ofMillis(20);

  public ApplierSettings {
    if (leasePath == null || !leasePath.startsWith("/")) {
      throw GraphException.invalid("leasePath must be an absolute znode path, got " + leasePath);
    }
    if (batchSize < 1 || maxAttempts < 1) {
      throw GraphException.invalid("batchSize and maxAttempts must be positive");
    }
    for (Duration d : new Duration[] {idleDelay, maxBackoff, tombstoneGrace, gcInterval}) {
      if (d == null || d.isNegative() || d.isZero()) {
        throw GraphException.invalid("applier durations must be positive, got " + d);
      }
    }
    if (busyPause == null || busyPause.isNegative()) {
      throw GraphException.invalid("busyPause must be zero or positive, got " + busyPause);
    }
  }

  /** These settings with leases held under {@code path} instead (a second fleet beside the first). */
  public ApplierSettings withLeasePath(String path) {
    return new ApplierSettings(path, batchSize, idleDelay, maxAttempts, maxBackoff, tombstoneGrace, gcInterval,
        busyPause);
  }

  public static ApplierSettings defaults() {
    return new ApplierSettings(DEFAULT_LEASE_PATH, DEFAULT_BATCH_SIZE, DEFAULT_IDLE_DELAY, DEFAULT_MAX_ATTEMPTS,
        DEFAULT_MAX_BACKOFF, DEFAULT_TOMBSTONE_GRACE, DEFAULT_GC_INTERVAL, DEFAULT_BUSY_PAUSE);
  }
}
