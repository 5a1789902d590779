package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.TestClock;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/** How a host's stalled commits are told from slow ones, with time moved by the test. */
class CommitWatchTest {
  @Test
  void aCommitInFlightForHalfItsDeadline_stallsItsHost_untilACommitThereSucceeds() {
    TestClock clock = new TestClock(Instant.parse("2026-11-25T00:00:00Z"));
    CommitWatch watch = new CommitWatch(clock);
    long quick = watch.sent("h1");
    long stuck = watch.sent("h2");
    clock.advance(Duration.ofMillis(100));
    watch.answered("h1", quick, true);
    assertThat(watch.stalled("h2", 3000)).as("slow, not stalled").isNull();

    clock.advance(Duration.ofMillis(1399));
    assertThat(watch.stalled("h2", 3000)).as("1499 ms of a 3000 ms deadline: slow, not stalled").isNull();
    clock.advance(Duration.ofMillis(1));
    assertThat(watch.oldestWaitMillis("h2")).isEqualTo(1500);
    assertThat(watch.stalled("h2", 3000)).as("half the deadline: reported before the killer kills it at the"
        + " request's deadline").contains("has waited 1500 ms");
    assertThat(watch.stalled("h1", 3000)).isNull();

    watch.answered("h2", stuck, false);
    assertThat(watch.inFlight("h2")).isZero();
    assertThat(watch.stalled("h2", 3000)).as("killed, but nothing has succeeded since").contains("none has succeeded");

    long next = watch.sent("h2");
    watch.answered("h2", next, true);
    assertThat(watch.stalled("h2", 3000)).as("a COMMIT succeeded").isNull();
  }

  @Test
  void aHostThatRefusedAStatementForSpace_isShortOfSpaceForTwiceTheDeadline_fromItsLastRefusal() {
    TestClock clock = new TestClock(Instant.parse("2026-11-25T00:00:00Z"));
    CommitWatch watch = new CommitWatch(clock);
    assertThat(watch.shortOfSpace("h1", 3000)).isNull();

    watch.refused("h1", SqlErrors.ER_RECORD_FILE_FULL);
    clock.advance(Duration.ofSeconds(5));
    assertThat(watch.shortOfSpace("h1", 3000)).as("a write that succeeds proves nothing: the next may need a table"
        + " that cannot grow").isEqualTo("it is out of space or memory: it refused a statement with MySQL error 1114"
        + " 5000 ms ago (a full disk?)");
    assertThat(watch.shortOfSpace("h2", 3000)).isNull();
    assertThat(watch.stalled("h1", 3000)).as("its commits do not stall").isNull();

    watch.refused("h1", SqlErrors.ER_ERROR_ON_WRITE);
    clock.advance(Duration.ofMillis(5999));
    assertThat(watch.shortOfSpace("h1", 3000)).as("counted from the last refusal").contains("MySQL error 1026 5999 ms ago");
    clock.advance(Duration.ofMillis(1));
    assertThat(watch.shortOfSpace("h1", 3000)).as("twice the deadline without a refusal").isNull();
  }
}
