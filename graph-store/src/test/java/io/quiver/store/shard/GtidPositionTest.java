package io.quiver.store.shard;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.core.GraphException;
import org.junit.jupiter.api.Test;

class GtidPositionTest {

  @Test
  void aPositionCoversAnother_whenEachOfTheOthersDomainsIsAsFarAlong_whoeverWroteIt() {
    GtidPosition primary = GtidPosition.parse("0-1-120,1-7-4");
    assertThat(GtidPosition.parse("0-2-120,1-7-4").covers(primary)).as("a promoted replica continues the sequence")
        .isTrue();
    assertThat(GtidPosition.parse("0-1-121,1-7-9").covers(primary)).isTrue();
    assertThat(GtidPosition.parse("0-1-119,1-7-9").covers(primary)).isFalse();
    assertThat(GtidPosition.parse("0-1-500").covers(primary)).as("a domain it has never seen").isFalse();
    assertThat(primary.covers(GtidPosition.EMPTY)).isTrue();
  }

  @Test
  void blankIsEmpty_transactionsSumTheDomains_andGarbageIsRefused() {
    assertThat(GtidPosition.parse("")).isEqualTo(GtidPosition.EMPTY);
    assertThat(GtidPosition.parse(null)).isEqualTo(GtidPosition.EMPTY);
    assertThat(GtidPosition.parse(" 0-1-120, 1-7-4 ").transactions()).isEqualTo(124);
    assertThatThrownBy(() -> GtidPosition.parse("0-1")).isInstanceOf(GraphException.class);
    assertThatThrownBy(() -> GtidPosition.parse("a-b-c")).isInstanceOf(GraphException.class);
  }

  @Test
  void aBinlogState_holdsAnothers_onlyIfItHasEachDomainAndServersLastTransaction() {
    String promoted = "0-1-103,0-2-110";
    assertThat(GtidPosition.stateCovers(promoted, "0-1-103")).as("the old primary logged nothing alone").isTrue();
    assertThat(GtidPosition.stateCovers(promoted, "0-1-101")).isTrue();
    assertThat(GtidPosition.stateCovers(promoted, "0-1-105"))
        .as("the old primary committed 104 and 105 alone: diverged, however far the new one went").isFalse();
    assertThat(GtidPosition.stateCovers(promoted, "")).isTrue();
    assertThatThrownBy(() -> GtidPosition.stateCovers(promoted, "x")).isInstanceOf(GraphException.class);
  }
}
