package io.quiver.store.internal.outbox;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.OutboxStats;
import io.quiver.store.internal.table.OutboxTable;
import java.util.List;
import org.junit.jupiter.api.Test;

class OutboxFiguresTest {

  @Test
  void aHostsFigures_sumItsShards_ageTheOldestPendingEntry_andTheOldestChangeNotYetNumbered() {
    long now = 10_000_000;
    List<OutboxTable.Depth> depths = List.of(new OutboxTable.Depth(3, 1, 9_000_000L),
        new OutboxTable.Depth(2, 0, 7_500_000L), new OutboxTable.Depth(0, 0, null));

    assertThat(OutboxFigures.of(depths, 9_750_000L, now)).isEqualTo(new OutboxStats(5, 1, 2_500, 250));
    assertThat(OutboxFigures.of(List.of(), null, now)).as("nothing pending, every change readable")
        .isEqualTo(new OutboxStats(0, 0, 0, 0));
  }
}
