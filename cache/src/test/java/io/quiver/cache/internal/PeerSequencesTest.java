package io.quiver.cache.internal;

import static io.quiver.cache.internal.PeerSequences.Verdict.GAP;
import static io.quiver.cache.internal.PeerSequences.Verdict.IN_ORDER;
import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/** A lost or unseen invalidation is detected, never waited out. */
class PeerSequencesTest {
  private final AtomicLong now = new AtomicLong();
  private final Ticker ticker = now::get;
  private final PeerSequences sequences = new PeerSequences(Duration.ofSeconds(2), ticker);

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
  void aLostChange_isAGap_atTheNextChange() {
    sequences.change("a", 1);
    assertThat(sequences.change("a", 3)).isEqualTo(GAP);
    assertThat(sequences.change("a", 4)).as("counted from the gap on").isEqualTo(IN_ORDER);
  }

  @Test
  void aLostChange_isAGap_atTheNextHeartbeat_whenNoChangeFollows() {
    sequences.change("a", 1);
    assertThat(sequences.heartbeat("a", 2)).isEqualTo(GAP);
    assertThat(sequences.heartbeat("a", 2)).isEqualTo(IN_ORDER);
  }

  @Test
  void aPeerFirstHeardMidStream_isAGap_forItMayHaveChangedThingsBeforeItKnewOfUs() {
    assertThat(sequences.change("b", 7)).isEqualTo(GAP);
    sequences.expect("c");
    assertThat(sequences.heartbeat("c", 12)).isEqualTo(GAP);
  }

  @Test
  void aLateDatagram_afterTheGapItLeft_isInOrder() {
    sequences.change("a", 1);
    assertThat(sequences.change("a", 3)).isEqualTo(GAP);
    assertThat(sequences.change("a", 2)).isEqualTo(IN_ORDER);
    assertThat(sequences.change("a", 4)).isEqualTo(IN_ORDER);
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
