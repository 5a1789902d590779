package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.SplittableRandom;
import org.junit.jupiter.api.Test;

/** Belady's MIN: the best hit ratio a cache of a given size could have had on a trace. */
class BestPossibleTest {

  @Test
  void onACyclicTrace_keepsWhatItCan_andNeverAdmitsWhatIsNotWantedAgain() {
    long[] cycle = {1, 2, 3, 1, 2, 3};
    // LRU would hit nothing here with two entries; MIN keeps 1 and 2 and bypasses 3.
    assertThat(BestPossible.hitRatio(cycle, 0, 2)).isCloseTo(2.0 / 6, within(1e-9));
    assertThat(BestPossible.hitRatio(cycle, 0, 3)).isCloseTo(3.0 / 6, within(1e-9));
    assertThat(BestPossible.hitRatio(cycle, 3, 3)).as("only the measured part counts").isEqualTo(1.0);
    assertThat(BestPossible.pinnedHitRatio(new long[] {1, 1, 1, 2, 3}, 0, 1)).isCloseTo(3.0 / 5, within(1e-9));
  }

  @Test
  void isNeverBelowWhatAnLruCacheOfTheSameSizeHits() {
    SplittableRandom random = new SplittableRandom(7);
    Zipf zipf = new Zipf(1_000, 0.8);
    long[] trace = new long[50_000];
    for (int i = 0; i < trace.length; i++) {
      trace[i] = zipf.next(random);
    }
    for (int capacity : new int[] {10, 100, 500}) {
      double best = BestPossible.hitRatio(trace, 10_000, capacity);
      double lru = lru(trace, 10_000, capacity);
      assertThat(best).as("capacity " + capacity).isGreaterThanOrEqualTo(lru).isLessThanOrEqualTo(1.0);
      assertThat(BestPossible.pinnedHitRatio(trace, 10_000, capacity)).as("the best fixed cache, capacity " + capacity)
          .isLessThanOrEqualTo(best).isGreaterThan(0);
    }
  }

  private static double lru(long[] trace, int measuredFrom, int capacity) {
    Map<Long, Boolean> cache = new LinkedHashMap<>(16, 0.75f, true) {
      @Override
      protected boolean removeEldestEntry(Map.Entry<Long, Boolean> eldest) {
        return size() > capacity;
      }
    };
    long hits = 0;
    for (int i = 0; i < trace.length; i++) {
      if (cache.get(trace[i]) != null && i >= measuredFrom) {
        hits++;
      }
      cache.put(trace[i], true);
    }
    return (double) hits / (trace.length - measuredFrom);
  }
}
