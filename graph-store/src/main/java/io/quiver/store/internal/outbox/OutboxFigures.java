package io.quiver.store.internal.outbox;

import io.quiver.store.OutboxStats;
import io.quiver.store.internal.table.OutboxTable;
import java.util.List;

/**
 * One host's outbox figures from its shards' depths, and how far its change logs' numbering lags. Measured when asked (a scrape of
 * {@code /metrics}), never by the drainer's passes: an idle drainer's pass costs its host one
 * statement ({@link io.quiver.store.internal.table.OutboxTable#shardsWithWork}), not more.
 */
final class OutboxFigures {
  private OutboxFigures() {}

  /**
   * @param oldestUnnumberedUs when the oldest change not yet numbered in the host's change logs was
   *     written; null when there is none
   */
  static OutboxStats of(List<OutboxTable.Depth> depths, Long oldestUnnumberedUs, long nowUs) {
    long pending = 0;
    long parked = 0;
    Long oldest = null;
    for (OutboxTable.Depth depth : depths) {
      pending += depth.pending();
      parked += depth.parked();
      if (depth.oldestCreatedUs() != null && (oldest == null || depth.oldestCreatedUs() < oldest)) {
        oldest = depth.oldestCreatedUs();
      }
    }
    long ageMillis = oldest == null ? 0 : Math.max(0, (nowUs - oldest) / 1000);
    long changeLogLagMillis = oldestUnnumberedUs == null ? 0 : Math.max(0, (nowUs - oldestUnnumberedUs) / 1000);
    return new OutboxStats(pending, parked, ageMillis, changeLogLagMillis);
  }
}
