package io.quiver.core;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** {@link Futures#repeat} and {@link Futures#forEach}: any number of rounds, answered at once or later, on a flat stack. */
class FuturesTest {
  private static final int ROUNDS = 200_000;
  private static Vertx vertx;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  @Test
  void repeat_ofRoundsAnsweredLater_runsThemAll_withoutNestingAFuturePerRound() {
    Context context = vertx.getOrCreateContext();
    AtomicInteger rounds = new AtomicInteger();
    Promise<Void> finished = Promise.promise();
    context.runOnContext(start -> Futures.repeat(() -> {
      Promise<Boolean> later = Promise.promise();
      context.runOnContext(next -> later.complete(rounds.incrementAndGet() < ROUNDS));
      return later.future();
    }).onComplete(finished));

    finished.future().await();
    assertThat(rounds).hasValue(ROUNDS);
  }

  @Test
  void repeat_ofRoundsAnsweredAtOnce_runsThemAll() {
    AtomicInteger rounds = new AtomicInteger();

    Futures.repeat(() -> Future.succeededFuture(rounds.incrementAndGet() < ROUNDS)).await();

    assertThat(rounds).hasValue(ROUNDS);
  }

  @Test
  void repeat_failsWithTheFirstRoundThatFails_orThrows_andRunsNoMore() {
    AtomicInteger rounds = new AtomicInteger();
    Future<Void> failed = Futures.repeat(() -> rounds.incrementAndGet() < 3 ? Future.succeededFuture(true)
        : Future.failedFuture(GraphException.invalid("round 3")));
    assertThat(failed.cause()).hasMessage("round 3");
    assertThat(rounds).hasValue(3);

    Future<Void> threw = Futures.repeat(() -> {
      throw new IllegalStateException("a bug");
    });
    assertThat(threw.cause()).isInstanceOf(GraphException.class);
  }

  @Test
  void forEach_runsEachStepInOrder_theNextOnlyOnceTheLastSucceeded_andStopsAtTheFirstFailure() {
    java.util.List<Integer> ran = new java.util.ArrayList<>();
    Futures.forEach(java.util.stream.IntStream.range(0, ROUNDS).boxed().toList(), item -> {
      ran.add(item);
      return Future.succeededFuture();
    }).await();
    assertThat(ran).hasSize(ROUNDS).startsWith(0, 1, 2).endsWith(ROUNDS - 1);

    ran.clear();
    Future<Void> failed = Futures.forEach(java.util.List.of(1, 2, 3), item -> {
      ran.add(item);
      return item == 2 ? Future.failedFuture(GraphException.invalid("item 2")) : Future.succeededFuture();
    });
    assertThat(failed.cause()).hasMessage("item 2");
    assertThat(ran).containsExactly(1, 2);
  }
}
