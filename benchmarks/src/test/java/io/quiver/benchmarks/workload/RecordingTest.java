package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.Future;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RecordingTest {
  @Test
  void failuresAreCountedByKind_aStatusOrTheException_andTheKindsTravelWithTheRecording() {
    Recording recording = new Recording();
    recording.record(Operation.ADD_EDGE, 100, Recording.failure(Future.succeededFuture(200)));
    recording.record(Operation.ADD_EDGE, 100, Recording.failure(Future.succeededFuture(404)));
    recording.record(Operation.ADD_EDGE, 100, Recording.failure(Future.succeededFuture(503)));
    recording.record(Operation.REMOVE_EDGE, 100, Recording.failure(Future.succeededFuture(503)));
    recording.record(Operation.GET_NODE, 100, Recording.failure(Future.failedFuture("connection reset")));

    Recording sent = Recording.fromJson(recording.toJson());

    assertThat(sent.failureKinds()).isEqualTo(Map.of("status 503", 2L,
        "io.vertx.core.impl.NoStackTraceThrowable: connection reset", 1L));
    assertThat(sent.failures(Operation.ADD_EDGE)).as("a 4xx is an outcome of the mix, not a failure").isEqualTo(1);
    assertThat(sent.count(Operation.ADD_EDGE)).isEqualTo(3);
  }
}
