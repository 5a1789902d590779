package io.quiver.benchmarks.workload;

import java.util.HashMap;
import java.util.Map;
import java.util.TreeSet;

/**
 * The best hit ratio any cache of a given number of entries could have had on a trace: Belady's
 * MIN (1966), which knows the future — on a miss it keeps the entries wanted again soonest and
 * drops (or never admits) the one wanted latest. No real policy reaches it; how far a cache's
 * measured ratio is below it says how much a better policy could still win at that size.
 *
 * <p>Beside it, {@link #pinnedHitRatio}: the hit ratio of the best <em>fixed</em> cache — the
 * {@code capacity} keys read most often in the measured part, pinned. When reads are drawn
 * independently from one popularity law (the workload's Zipf), no policy that does not know the
 * future beats it on average (the independent reference model's optimum, Aho–Denning–Ullman's A0);
 * it is the bound a real policy such as Caffeine's W-TinyLFU is measured against.
 *
 * <p>Entries count alike (a cache of nodes of about one size); O(n log n) in the trace's length.
 */
final class BestPossible {
  private BestPossible() {}

  /**
   * Hits over the lookups from {@code measuredFrom} on, when a cache of {@code capacity} entries
   * served the whole trace optimally from empty (the lookups before {@code measuredFrom} warm it).
   */
  static double hitRatio(long[] trace, int measuredFrom, int capacity) {
    int length = trace.length;
    if (length <= measuredFrom || capacity < 1) {
      return 0;
    }
    // The next position each key is wanted at, after each lookup; "never" is past the end.
    int[] next = new int[length];
    Map<Long, Integer> seenNext = new HashMap<>();
    for (int i = length - 1; i >= 0; i--) {
      next[i] = seenNext.getOrDefault(trace[i], Integer.MAX_VALUE);
      seenNext.put(trace[i], i);
    }
    // Cached keys ordered by when they are next wanted: the last is the one to drop.
    TreeSet<long[]> byNextUse = new TreeSet<>((a, b) -> a[0] != b[0] ? Long.compare(a[0], b[0]) : Long.compare(a[1], b[1]));
    Map<Long, long[]> cached = new HashMap<>();
    long hits = 0;
    for (int i = 0; i < length; i++) {
      long key = trace[i];
      long[] entry = cached.get(key);
      if (entry != null) {
        if (i >= measuredFrom) {
          hits++;
        }
        byNextUse.remove(entry);
      } else {
        if (next[i] == Integer.MAX_VALUE) {
          continue;
        }
        if (cached.size() >= capacity) {
          long[] latest = byNextUse.last();
          if (latest[0] <= next[i]) {
            continue;
          }
          byNextUse.pollLast();
          cached.remove(latest[1]);
        }
      }
      if (next[i] == Integer.MAX_VALUE) {
        cached.remove(key);
        continue;
      }
      long[] updated = {next[i], key};
      cached.put(key, updated);
      byNextUse.add(updated);
    }
    return (double) hits / (length - measuredFrom);
  }

  /** Hits over the lookups from {@code measuredFrom} on, had the {@code capacity} keys read most there been pinned. */
  static double pinnedHitRatio(long[] trace, int measuredFrom, int capacity) {
    int length = trace.length;
    if (length <= measuredFrom || capacity < 1) {
      return 0;
    }
    Map<Long, Integer> reads = new HashMap<>();
    for (int i = measuredFrom; i < length; i++) {
      reads.merge(trace[i], 1, Integer::sum);
    }
    long hits = reads.values().stream().sorted(java.util.Comparator.reverseOrder()).limit(capacity)
        .mapToLong(Integer::longValue).sum();
    return (double) hits / (length - measuredFrom);
  }
}
