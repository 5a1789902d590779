package io.quiver.core;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.function.Supplier;

/** Keeps the rule that a method returning a Future never throws. */
public final class Futures {
  private Futures() {}

  /**
   * The supplier's value as a succeeded future, or what it threw as a failed one: a
   * {@link GraphException} as it is, anything else as INTERNAL.
   */
  public static <T> Future<T> attempt(Supplier<T> step) {
    try {
      return Future.succeededFuture(step.get());
    } catch (GraphException e) {
      return Future.failedFuture(e);
    } catch (RuntimeException e) {
      return Future.failedFuture(GraphException.of(GraphException.Code.INTERNAL, "unexpected failure", e));
    }
  }

  /**
   * The future a step starts, or what the step threw while starting it as a failed one (as
   * {@link #attempt}): a caller chaining on it never sees a throw.
   */
  public static <T> Future<T> started(Supplier<Future<T>> step) {
    return attempt(step).compose(running -> running);
  }

  /**
   * Runs {@code round} again and again while it answers true; the answer completes when a round
   * answers false, or fails with the first round that fails. However many rounds there are, the
   * stack stays flat: a loop written as {@code round().compose(more -> more ? loop() : done)}
   * nests one future per round, and completing the last one unwinds through all of them at once
   * (a cascade over a node with thousands of pages of edges overflowed the event loop's stack).
   * Rounds that complete at once are run in a loop; one that completes later resumes it from its
   * own callback.
   */
  public static Future<Void> repeat(Supplier<Future<Boolean>> round) {
    Promise<Void> done = Promise.promise();
    repeat(round, done);
    return done.future();
  }

  /**
   * Runs {@code step} on each item in turn, the next once the last one's future succeeded; fails
   * with the first that fails. A flat stack however many items ({@link #repeat}).
   */
  public static <T> Future<Void> forEach(Iterable<T> items, java.util.function.Function<T, Future<?>> step) {
    java.util.Iterator<T> next = items.iterator();
    return repeat(() -> next.hasNext() ? step.apply(next.next()).map(true) : Future.succeededFuture(false));
  }

  private static void repeat(Supplier<Future<Boolean>> round, Promise<Void> done) {
    while (true) {
      Future<Boolean> more = started(round);
      if (!more.isComplete()) {
        more.onComplete(answered -> {
          if (answered.failed()) {
            done.fail(answered.cause());
          } else if (Boolean.TRUE.equals(answered.result())) {
            repeat(round, done);
          } else {
            done.complete();
          }
        });
        return;
      }
      if (more.failed()) {
        done.fail(more.cause());
        return;
      }
      if (!Boolean.TRUE.equals(more.result())) {
        done.complete();
        return;
      }
    }
  }
}
