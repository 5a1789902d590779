package io.quiver.store.internal.outbox;

import io.quiver.core.GraphException;
import io.quiver.store.ApplierSettings;

/**
 * When a failed entry is tried again, and when it is parked.
 *
 * <p>An entry that failed because its target was unavailable or lost a lock conflict waits a
 * short, fixed while and is retried for as long as that lasts, without counting toward parking:
 * an outage must not park the work that is waiting for it. Any other failure counts, backs off
 * exponentially up to {@link ApplierSettings#maxBackoff()}, and after
 * {@link ApplierSettings#maxAttempts()} the entry is parked with its error, so that one entry
 * that can never be applied does not stand for ever in front of the others.
 */
final class RetryPolicy {
  static final long TRANSIENT_RETRY_US = 500_000;
  private static final long BASE_BACKOFF_US = 10_000;

  private final ApplierSettings settings;

  RetryPolicy(ApplierSettings settings) {
    this.settings = settings;
  }

  /** What to do with an entry after a failure. */
  record Decision(int countedAttempts, long delayUs, boolean park) {}

  Decision after(GraphException failure, int attemptsSoFar) {
    boolean transientFailure = failure.code() == GraphException.Code.UNAVAILABLE
        || failure.code() == GraphException.Code.ABORTED;
    if (transientFailure) {
      return new Decision(0, TRANSIENT_RETRY_US, false);
    }
    int attempts = attemptsSoFar + 1;
    long backoffUs = Math.min(settings.maxBackoff().toNanos() / 1000, BASE_BACKOFF_US << Math.min(attempts, 20));
    return new Decision(1, backoffUs, attempts >= settings.maxAttempts());
  }
}
