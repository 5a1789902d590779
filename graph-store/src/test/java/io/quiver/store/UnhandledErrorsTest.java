package io.quiver.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class UnhandledErrorsTest {

  @Test
  void onlyTheSqlPoolsSecondCompletion_isTakenForTheKnownHarmlessRace() {
    IllegalStateException race = new IllegalStateException("Promise already completed");
    race.setStackTrace(new StackTraceElement[] {
        new StackTraceElement("io.vertx.core.Promise", "fail", "Promise.java", 110),
        new StackTraceElement("io.vertx.sqlclient.impl.pool.SqlConnectionPool$1PoolRequest", "lambda$onEnqueue$1",
            "SqlConnectionPool.java", 309)});
    IllegalStateException elsewhere = new IllegalStateException("Promise already completed");
    elsewhere.setStackTrace(new StackTraceElement[] {
        new StackTraceElement("io.quiver.store.internal.Something", "run", "Something.java", 1)});

    assertThat(UnhandledErrors.poolCompletedTwice(race)).isTrue();
    assertThat(UnhandledErrors.poolCompletedTwice(elsewhere)).as("a bug of ours is still an ERROR").isFalse();
    assertThat(UnhandledErrors.poolCompletedTwice(new IllegalStateException("other"))).isFalse();
  }
}
