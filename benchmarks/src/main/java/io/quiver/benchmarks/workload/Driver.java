package io.quiver.benchmarks.workload;

import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

/**
 * Sends the mix to a target. Closed loop: {@code concurrency} callers, each sending its next
 * operation when the last is answered. Open loop: operations start on schedule at a fixed rate
 * whatever the answers do, and latency counts from the scheduled start (no coordinated omission).
 */
final class Driver {
  private final Vertx vertx;
  private final Graph graph;
  private final Mix mix;
  private final AtomicLong seeds = new AtomicLong(20261121);

  Driver(Vertx vertx, Graph graph, Mix mix) {
    this.vertx = vertx;
    this.graph = graph;
    this.mix = mix;
  }

  /** Runs for {@code duration}, then waits for the operations in flight; records into {@code into} if given. */
  Future<Void> closedLoop(Target target, int concurrency, Duration duration, Recording into) {
    Promise<Void> done = Promise.promise();
    AtomicInteger active = new AtomicInteger(concurrency);
    long deadline = System.nanoTime() + duration.toNanos();
    for (int i = 0; i < concurrency; i++) {
      SplittableRandom random = new SplittableRandom(seeds.incrementAndGet());
      vertx.runOnContext(start -> step(target, random, deadline, into, active, done));
    }
    return done.future();
  }

  private void step(Target target, SplittableRandom random, long deadline, Recording into, AtomicInteger active,
      Promise<Void> done) {
    if (System.nanoTime() >= deadline) {
      if (active.decrementAndGet() == 0) {
        done.complete();
      }
      return;
    }
    Call call = Call.next(mix.pick(random), graph, random);
    long started = System.nanoTime();
    target.execute(call).onComplete(outcome -> {
      if (into != null) {
        into.record(call.operation(), (System.nanoTime() - started) / 1000, Recording.failure(outcome));
      }
      step(target, random, deadline, into, active, done);
    });
  }

  /** Starts {@code rate} operations a second for {@code duration}, then waits for those in flight. */
  Future<Void> openLoop(Target target, int rate, Duration duration, Recording into) {
    Promise<Void> done = Promise.promise();
    SplittableRandom random = new SplittableRandom(seeds.incrementAndGet());
    long start = System.nanoTime();
    long total = (long) rate * duration.toSeconds();
    AtomicLong issued = new AtomicLong();
    AtomicLong finished = new AtomicLong();
    vertx.setPeriodic(1, timer -> {
      long due = Math.min(total, (System.nanoTime() - start) * rate / 1_000_000_000L);
      while (issued.get() < due) {
        long intended = start + issued.getAndIncrement() * 1_000_000_000L / rate;
        Call call = Call.next(mix.pick(random), graph, random);
        target.execute(call).onComplete(outcome -> {
          if (into != null) {
            into.record(call.operation(), (System.nanoTime() - intended) / 1000, Recording.failure(outcome));
          }
          if (finished.incrementAndGet() == total) {
            done.complete();
          }
        });
      }
      if (issued.get() >= total) {
        vertx.cancelTimer(timer);
      }
    });
    return done.future();
  }

}
