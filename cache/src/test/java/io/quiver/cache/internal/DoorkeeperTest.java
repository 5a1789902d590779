package io.quiver.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** A key is let in the second time it is asked about, within the doorkeeper's memory. */
class DoorkeeperTest {

  @Test
  void aKeyAskedTwice_isSeenTheSecondTime_andAKeyAskedOnce_isNot() {
    Doorkeeper door = new Doorkeeper();

    assertThat(door.seenBefore("list 1")).isFalse();
    assertThat(door.seenBefore("list 2")).isFalse();
    assertThat(door.seenBefore("list 1")).isTrue();
    assertThat(door.seenBefore("list 1")).isTrue();
  }

  @Test
  void itForgetsWhatItWasAsked_afterAQuarterOfItsBitsWereLetIn() {
    Doorkeeper door = new Doorkeeper(1 << 12);
    for (int i = 0; i < 10; i++) {
      door.seenBefore("old " + i);
    }
    for (int i = 0; i < 2_000; i++) {
      door.seenBefore("new " + i);
    }

    int forgotten = 0;
    for (int i = 0; i < 10; i++) {
      forgotten += door.seenBefore("old " + i) ? 0 : 1;
    }
    assertThat(forgotten).as("cleared once 1,024 keys were let in; a few may collide with keys let in since")
        .isGreaterThanOrEqualTo(5);
  }
}
