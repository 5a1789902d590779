package io.quiver.store.internal.outbox;

import io.quiver.store.OutboxStats;
import io.quiver.store.internal.table.OutboxTable;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/** The outbox figures of each host this process drains, as its last pass measured them. */
final class OutboxFigures {
  private final Map<String, OutboxStats> byHost = new ConcurrentHashMap<>();

  void record(String host, List<OutboxTable.Depth> depths, long nowUs) {
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
    byHost.put(host, new OutboxStats(pending, parked, ageMillis));
  }

  /** The host is no longer drained here. */
  void forget(String host) {
    byHost.remove(host);
  }

  Map<String, OutboxStats> snapshot() {
    return Map.copyOf(byHost);
  }
}
