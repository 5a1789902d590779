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
}
