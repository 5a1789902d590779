package io.quiver.benchmarks.consistency;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.buffer.Buffer;
import org.junit.jupiter.api.Test;

class ConsistencyBenchmarkTest {
  @Test
  void aMultiReadsRounds_areReadFromTheEndOfItsAnswer_withoutParsingTheRest() {
    String lists = "{\"nodes\": [{\"id\": \"1\", \"data\": {\"title\": \"rounds\"}}], \"lists\": [{\"edges\": []}]";

    assertThat(ConsistencyBenchmark.rounds(Buffer.buffer(lists + ",\"rounds\":2}"))).isEqualTo(2);
    assertThat(ConsistencyBenchmark.rounds(Buffer.buffer(lists + ", \"rounds\": 13}"))).isEqualTo(13);
    assertThat(ConsistencyBenchmark.rounds(Buffer.buffer("{\"rounds\":1}"))).isEqualTo(1);
    assertThat(ConsistencyBenchmark.rounds(Buffer.buffer(lists + "}"))).as("no rounds: not a multi-read's answer")
        .isZero();
  }
}
