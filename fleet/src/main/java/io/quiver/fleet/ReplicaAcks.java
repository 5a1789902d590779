package io.quiver.fleet;

import java.time.Duration;
import java.util.Objects;

/**
 * What a write to a host with replicas waits for before it is acknowledged: MariaDB's
 * semi-synchronous replication, after the transaction is in the primary's binary log and before
 * it commits in the engine ({@code AFTER_SYNC}), so no client ever reads a write a failover could
 * lose. What happens when no replica confirms is the operator's choice:
 * <ul>
 *   <li>{@link Mode#REFUSE} (the default): the primary keeps waiting for a replica. The write's
 *       statement deadline passes first, the caller is answered 503 "may or may not have been
 *       applied" (the transaction is in the binary log and reaches the replica when it returns),
 *       and the host is reported degraded ("its commits stall") until a replica confirms again.
 *       Nothing acknowledged lives on the primary alone.
 *   <li>{@link Mode#ASYNC}: after {@code timeout} without a confirmation the primary stops waiting
 *       and acknowledges writes asynchronously until a replica catches up (MariaDB's own
 *       fallback). Writes keep succeeding, and the host is reported degraded ("its writes are
 *       acknowledged without a replica") for as long as that lasts: a write acknowledged then is
 *       lost if the primary's disk is.
 * </ul>
 *
 * @param mode what a write does when no replica confirms
 * @param timeout how long a write waits for a confirmation before the primary falls back to
 *     asynchronous acknowledgements ({@link Mode#ASYNC} only; default 1 s)
 */
public record ReplicaAcks(Mode mode, Duration timeout) {
  /** In {@link Mode#ASYNC}, how long a commit waits for a replica before the primary falls back. */
  public static final Duration DEFAULT_TIMEOUT = Duration.ofSeconds(1);
  /**
   * In {@link Mode#REFUSE}, MariaDB's own timeout (in ms): about 49 days, so the primary never falls
   * back by itself; the request's deadline answers the caller long before.
   */
  public static final long REFUSE_TIMEOUT_MS = 4_294_967_295L;

  /** What a write does when no replica confirms it. */
  public enum Mode {
    /** Wait for a replica; the caller gets 503 at its deadline. Nothing acknowledged is lost. */
    REFUSE,
    /** Fall back to asynchronous acknowledgements after the timeout, reported as a degraded host. */
    ASYNC
  }

  public ReplicaAcks {
    Objects.requireNonNull(mode, "mode");
    if (timeout == null || timeout.isNegative() || timeout.isZero()) {
      throw new IllegalArgumentException("the replica acknowledgement timeout must be positive, got " + timeout);
    }
  }

  public static ReplicaAcks defaults() {
    return new ReplicaAcks(Mode.REFUSE, DEFAULT_TIMEOUT);
  }

  /** The value of {@code rpl_semi_sync_master_timeout} on a primary with replicas. */
  public long primaryTimeoutMs() {
    return mode == Mode.REFUSE ? REFUSE_TIMEOUT_MS : timeout.toMillis();
  }
}
