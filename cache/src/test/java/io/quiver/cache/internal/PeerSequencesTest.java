package io.quiver.cache.internal;

import static io.quiver.cache.internal.PeerSequences.Verdict.GAP;
import static io.quiver.cache.internal.PeerSequences.Verdict.IN_ORDER;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A lost or unseen invalidation is detected, never waited out; a merely reordered one costs nothing. */
class PeerSequencesTest {
  private final AtomicLong now = new AtomicLong();
  private final Ticker ticker = now::get;
  private static final Duration GRACE = Duration.ofMillis(50);
  private final PeerSequences sequences = new PeerSequences(Duration.ofSeconds(2), GRACE, ticker);

  private void advance(Duration by) {
    now.addAndGet(by.toNanos());
  }

  @Test
  void numbersInOrder_fromAPeerHeardFromItsStart_areInOrder() {
    sequences.expect("a");
    assertThat(sequences.heartbeat("a", 0)).isEqualTo(IN_ORDER);
    assertThat(sequences.change("a", 1)).isEqualTo(IN_ORDER);
    assertThat(sequences.change("a", 2)).isEqualTo(IN_ORDER);
    assertThat(sequences.heartbeat("a", 2)).isEqualTo(IN_ORDER);
    assertThat(sequences.change("a", 3)).isEqualTo(IN_ORDER);
  }

  @Test
  void aSkippedNumber_thatArrivesWithinTheGrace_wasOnlyReordered_andCostsNothing() {
    sequences.change("a", 1);
    assertThat(sequences.change("a", 3)).isEqualTo(IN_ORDER);
    advance(GRACE.dividedBy(2));
    assertThat(sequences.change("a", 2)).isEqualTo(IN_ORDER);
    advance(GRACE);
    assertThat(sequences.overdue()).isEmpty();
  }

  @Test
  void aSkippedNumber_stillMissingAfterTheGrace_wasLost_andNamesItsPeerOnce() {
    sequences.change("a", 1);
    sequences.change("a", 3);
    sequences.change("b", 1);
    advance(GRACE.minusMillis(1));
    assertThat(sequences.overdue()).as("may still arrive").isEmpty();
    advance(Duration.ofMillis(1));
    assertThat(sequences.overdue()).containsExactly("a");
    assertThat(sequences.overdue()).as("the caller dropped everything: the hole is forgotten").isEmpty();
    assertThat(sequences.change("a", 4)).isEqualTo(IN_ORDER);
  }

  @Test
  void aLostChange_isAHole_atTheNextHeartbeat_whenNoChangeFollows() {
    sequences.change("a", 1);
    assertThat(sequences.heartbeat("a", 2)).isEqualTo(IN_ORDER);
    advance(GRACE);
    assertThat(sequences.overdue()).containsExactly("a");
  }

  @Test
  void aHeartbeatThatOvertookItsChange_isFilledByTheChange() {
    sequences.change("a", 1);
    sequences.heartbeat("a", 2);
    assertThat(sequences.change("a", 2)).isEqualTo(IN_ORDER);
    advance(GRACE);
    assertThat(sequences.overdue()).isEmpty();
  }

  @Test
  void moreHolesThanAReorderingCouldLeave_areAGapAtOnce() {
    sequences.change("a", 1);
    assertThat(sequences.change("a", 2 + PeerSequences.MAX_HOLES)).isEqualTo(IN_ORDER);
    assertThat(sequences.change("a", 4 + PeerSequences.MAX_HOLES)).as("one hole too many").isEqualTo(GAP);
    assertThat(sequences.overdue()).as("the gap dropped everything; nothing left to wait for").isEmpty();
    assertThat(sequences.change("a", 5 + PeerSequences.MAX_HOLES)).isEqualTo(IN_ORDER);
  }

  @Test
  void aPeerFirstHeardMidStream_isAGap_forItMayHaveChangedThingsBeforeItKnewOfUs() {
    assertThat(sequences.change("b", 7)).isEqualTo(GAP);
    sequences.expect("c");
    assertThat(sequences.heartbeat("c", 12)).isEqualTo(GAP);
    advance(GRACE);
    assertThat(sequences.overdue()).as("counted from what was first heard").isEmpty();
  }

  @Test
  void aPeerThatLeftAndCameBack_isHeardAfresh() {
    sequences.change("a", 1);
    sequences.forget("a");
    sequences.expect("a");
    assertThat(sequences.change("a", 5)).isEqualTo(GAP);
  }

  @Test
  void aRegisteredPeerSilentForTheBound_isNamedOncePerBound_whileItStaysSilent() {
    sequences.expect("quiet");
    sequences.expect("talkative");
    advance(Duration.ofMillis(1500));
    sequences.heartbeat("talkative", 0);
    assertThat(sequences.silent()).isEmpty();

    advance(Duration.ofMillis(600));
    assertThat(sequences.silent()).containsExactly("quiet");
    assertThat(sequences.silent()).as("not again within the same bound").isEmpty();

    advance(Duration.ofMillis(2000));
    assertThat(sequences.silent()).containsExactlyInAnyOrder("quiet", "talkative");
  }

  @Test
  void aPeerThatLeft_isNeverSilent() {
    sequences.expect("gone");
    sequences.forget("gone");
    advance(Duration.ofSeconds(10));
    assertThat(sequences.silent()).isEmpty();
  }
}
