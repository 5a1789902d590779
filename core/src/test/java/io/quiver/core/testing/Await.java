package io.quiver.core.testing;

import java.time.Duration;

/**
 * Waiting in a test for what happens on other threads — a watcher seeing a new version, a drainer
 * emptying an outbox, a probe finding a host — by polling a condition until it holds or a
 * deadline passes. One helper, so every wait fails the same way: an {@link AssertionError} naming
 * what was awaited and for how long, never a test that hangs or passes on a timeout.
 */
public final class Await {
  /** How often a condition is asked: often enough for a test's latencies, rarely enough to cost nothing. */
  private static final Duration POLL = Duration.ofMillis(10);

  private Await() {}

  /** A condition that may throw (a query, a ZooKeeper read). */
  @FunctionalInterface
  public interface Condition {
    boolean holds() throws Exception;
  }

  /**
   * Returns once {@code condition} holds; fails with {@code what} if it does not within
   * {@code within}. A condition that throws fails the wait with its exception (a checked one
   * wrapped in an {@link AssertionError}).
   */
  public static void until(String what, Duration within, Condition condition) throws InterruptedException {
    long deadline = System.nanoTime() + within.toNanos();
    while (!holds(condition, what)) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError("not within " + within.toMillis() + " ms: " + what);
      }
      Thread.sleep(POLL.toMillis());
    }
  }

  private static boolean holds(Condition condition, String what) throws InterruptedException {
    try {
      return condition.holds();
    } catch (RuntimeException | InterruptedException unchecked) {
      throw unchecked;
    } catch (Exception checked) {
      throw new AssertionError("while waiting until " + what, checked);
    }
  }
}
