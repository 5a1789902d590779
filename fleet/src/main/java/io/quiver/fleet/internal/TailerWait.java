package io.quiver.fleet.internal;

import io.quiver.core.GraphException;
import io.quiver.store.Repairs;
import java.time.Duration;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;

/**
 * The admin side of {@link Repairs#caughtUp}: a blocking wait, on an admin thread, until a host's
 * change-log tailer has passed everything the host committed. What a shard move's cut-over asks of
 * its source, and adding a replica of its primary, when the log is written from the binary log.
 */
public final class TailerWait {
  private TailerWait() {}

  /**
   * Waits for {@code host}'s tailer for at most {@code bound}; what {@link Repairs#caughtUp}
   * refuses is thrown as it is, anything else (a timeout included) as UNAVAILABLE.
   */
  public static void caughtUp(Repairs changes, String host, Duration bound) throws InterruptedException {
    try {
      changes.caughtUp(host).toCompletionStage().toCompletableFuture().get(bound.toMillis(), TimeUnit.MILLISECONDS);
    } catch (ExecutionException failed) {
      throw failed.getCause() instanceof GraphException refused ? refused : GraphException.unavailable(
          "the change log of " + host + " could not be waited for: " + failed.getCause().getMessage());
    } catch (TimeoutException late) {
      throw GraphException.unavailable("the change log of " + host + " was not written up to now within "
          + bound.toMillis() + " ms: is its tailer running?");
    }
  }
}
