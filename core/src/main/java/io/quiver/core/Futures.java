package io.quiver.core;

import io.vertx.core.Future;
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
}
