package io.quiver.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.internal.GuardedCache.Present;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** The rules by which entries only move forward in time, per key and per group of keys. */
class GuardedCacheTest {
  /** Keys "a:1", "b:2": the group is the part before the colon. */
  private static GuardedCache<String, String> cache() {
    return new GuardedCache<>(1 << 20, String::length, (candidate, cached) -> true, Duration.ofMinutes(5),
        Duration.ofSeconds(2), Duration.ofSeconds(10), Ticker.systemTicker(), key -> key.substring(0, key.indexOf(':')));
  }

  @Test
  void clearingAGroup_forgetsItsEntries_andRefusesItsFillsBegunBefore_whileOtherGroupsKeepTheirs() {
    GuardedCache<String, String> cache = cache();
    cache.fill("a:1", cache.begin(), "old a");
    cache.fill("b:1", cache.begin(), "b");
    long begunBefore = cache.begin();

    cache.clearGroup("a");

    assertThat(cache.lookup("a:1")).isNull();
    assertThat(cache.lookup("b:1")).isEqualTo(new Present<>("b", 2));
    cache.fill("a:2", begunBefore, "read under the old schema");
    assertThat(cache.lookup("a:2")).as("a fill begun before the clear").isNull();
    cache.fill("a:1", cache.begin(), "new a");
    assertThat(cache.lookup("a:1")).isInstanceOf(Present.class);
    assertThat(((Present<String>) cache.lookup("a:1")).value()).isEqualTo("new a");
    assertThat(cache.values()).containsOnlyKeys("a:1", "b:1");
  }

  @Test
  void aValueOfAClearedGroup_isNotKeptOverAFill_evenWhenTheFillIsNoNewer() {
    GuardedCache<String, String> nodes = new GuardedCache<>(1 << 20, String::length,
        (candidate, cached) -> candidate.compareTo(cached) > 0, Duration.ofMinutes(5), Duration.ofSeconds(2),
        Duration.ofSeconds(10), Ticker.systemTicker(), key -> key.substring(0, key.indexOf(':')));
    nodes.fill("a:1", nodes.begin(), "v1 with old defaults");
    nodes.clearGroup("a");

    nodes.fill("a:1", nodes.begin(), "v1 with new defaults");

    assertThat(((Present<String>) nodes.lookup("a:1")).value()).isEqualTo("v1 with new defaults");
  }
}
