package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.internal.sql.ReplicaLag.Freshness;
import io.quiver.store.internal.sql.ReplicaLag.PrimarySample;
import io.quiver.store.internal.sql.ReplicaLag.ReplicaSample;
import io.quiver.store.shard.GtidPosition;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The rules that turn probes' samples into "current as of" ({@link Freshness#asOf}), times in milliseconds. */
class ReplicaLagTest {
  private static final boolean CONFIRMED = true;
  private static final boolean ASYNC = false;

  @Test
  void aReplica_isCurrentAsOfTheLatestPrimarySampleItHasApplied() {
    List<PrimarySample> primary = List.of(sample(1000, "0-1-10", ASYNC), sample(1100, "0-1-12", ASYNC),
        sample(1200, "0-1-15", ASYNC));
    assertThat(asOf(primary, replica(1250, "0-1-12", "0-1-15"))).isEqualTo(1100);
    assertThat(asOf(primary, replica(1250, "0-1-15", "0-1-15"))).isEqualTo(1200);
    assertThat(asOf(primary, replica(1250, "0-1-9", "0-1-15"))).as("behind every sample kept: unknown").isEqualTo(-1);
    assertThat(asOf(primary, null)).as("never answered").isEqualTo(-1);
  }

  @Test
  void withAPrimaryThatNeverAcknowledgesAloneFallingSilent_aReplicaThatAppliedAllItReceived_isCurrentAsOfItsLastAnswer() {
    // The primary's last answer was at 1000; the replica answered at 2400 having applied all it received.
    List<PrimarySample> silent = List.of(sample(1000, "0-1-10", CONFIRMED));
    assertThat(asOf(silent, replica(2400, "0-1-11", "0-1-11"))).isEqualTo(2400);
    assertThat(asOf(silent, replica(2400, "0-1-10", "0-1-11"))).as("received more than it applied: the first rule only")
        .isEqualTo(1000);
    List<PrimarySample> async = List.of(sample(1000, "0-1-10", ASYNC));
    assertThat(asOf(async, replica(2400, "0-1-11", "0-1-11")))
        .as("a primary that may acknowledge alone: nothing vouches for what it did since").isEqualTo(1000);
  }

  @Test
  void withSeveralReplicas_oneIsCurrentOnlyIfItAppliedWhatEveryOneReceived_asOfTheEarliestAsk() {
    List<PrimarySample> silent = List.of(sample(1000, "0-1-10", CONFIRMED));
    ReplicaSample behind = replica(2300, "0-1-11", "0-1-11");
    ReplicaSample ahead = replica(2400, "0-1-12", "0-1-12");
    assertThat(Freshness.asOf(silent, ahead, Arrays.asList(behind, ahead))).isEqualTo(2300);
    assertThat(Freshness.asOf(silent, behind, Arrays.asList(behind, ahead)))
        .as("the other received a write it has not: only the primary's sample").isEqualTo(1000);
    assertThat(Freshness.asOf(silent, ahead, Arrays.asList(null, ahead)))
        .as("a replica never heard from may hold an acknowledged write").isEqualTo(1000);
  }

  private static long asOf(List<PrimarySample> primary, ReplicaSample replica) {
    return Freshness.asOf(primary, replica, Arrays.asList(replica));
  }

  private static PrimarySample sample(long sentAt, String position, boolean confirmed) {
    return new PrimarySample(sentAt, GtidPosition.parse(position), confirmed);
  }

  private static ReplicaSample replica(long sentAt, String applied, String received) {
    return new ReplicaSample(sentAt, GtidPosition.parse(applied), GtidPosition.parse(received));
  }
}
