package io.quiver.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.OutboxStats;
import io.quiver.store.StoreTelemetry;
import io.vertx.core.Future;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.ZoneOffset;
import java.util.Map;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

/** The health route probes the hosts at most once a second, however often it is asked. */
class HealthRouteTest {

  /** Counts probes; every host answers up. */
  private static final class CountedProbes implements StoreTelemetry {
    final AtomicInteger probes = new AtomicInteger();

    @Override
    public long nodeReadQueries() {
      return 0;
    }

    @Override
    public long edgeReadQueries() {
      return 0;
    }

    @Override
    public Map<String, Integer> poolSizes() {
      return Map.of();
    }

    @Override
    public Future<Map<String, OutboxStats>> outboxStats() {
      return Future.succeededFuture(Map.of());
    }

    @Override
    public Future<Map<String, Boolean>> checkHosts() {
      probes.incrementAndGet();
      return Future.succeededFuture(Map.of("h1", true));
    }
  }

  private static final class MovableClock extends Clock {
    private Instant now = Instant.parse("2026-11-22T00:00:00Z");

    @Override
    public Instant instant() {
      return now;
    }

    @Override
    public java.time.ZoneId getZone() {
      return ZoneOffset.UTC;
    }

    @Override
    public Clock withZone(java.time.ZoneId zone) {
      return this;
    }

    void advance(Duration by) {
      now = now.plus(by);
    }
  }

  @Test
  void manyHealthCallsWithinASecond_probeTheHostsOnce_andTheNextSecondProbesAgain() {
    CountedProbes telemetry = new CountedProbes();
    MovableClock clock = new MovableClock();
    HealthRoute health = new HealthRoute(telemetry, () -> true, clock);

    for (int i = 0; i < 100; i++) {
      assertThat(health.hosts().result()).containsEntry("h1", true);
      clock.advance(Duration.ofMillis(9));
    }
    assertThat(telemetry.probes).as("100 calls over 0.9 s").hasValue(1);

    clock.advance(HealthRoute.PROBE_EVERY);
    health.hosts();
    assertThat(telemetry.probes).hasValue(2);
  }
}
