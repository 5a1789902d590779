package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;

/** What the point-read mixes send: single edges as often absent as present, and batches across sources. */
class CallTest {
  private static final Graph GRAPH = new Graph(LongStream.rangeClosed(1, 100).boxed().toList(), Graph.READ_SHAPE,
      Graph.WRITE_SHAPE);

  static {
    GRAPH.knowEdges(Map.of(1L, List.of(2L, 3L, 4L)));
  }

  @Test
  void aBatchRead_asksItsNodesKnownTargetsFirst_thenOthers_tenDistinctSources_aboutOneTarget() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < 50; i++) {
      Call call = Call.next(Operation.BATCH_READ, GRAPH, random);
      assertThat(call.sources()).hasSize(Call.BATCH).doesNotHaveDuplicates();
      if (call.from() == 1) {
        assertThat(call.sources()).startsWith(2L, 3L, 4L);
      }
    }
  }

  @Test
  void aBatchRead_travelsAsTheApisBatchGet() throws Exception {
    Call call = new Call(Operation.BATCH_READ, 1, 9, 0, null, List.of(2L, 3L));

    JsonNode body = new ObjectMapper().readTree(HttpTarget.batchBody(call));

    assertThat(body.get("edges")).hasSize(2);
    assertThat(body.get("edges").get(1).get("from").asText()).isEqualTo("3");
    assertThat(body.get("edges").get(1).get("type").asText()).isEqualTo("follows");
    assertThat(body.get("edges").get(1).get("to").asText()).isEqualTo("9");
  }

  @Test
  void thePointsMixes_areNamedOnTheCommandLine_andReadMostlySingleEdges() {
    assertThat(Mix.of("points")).isEqualTo(Mix.POINTS);
    assertThat(Mix.of("points-batch")).isEqualTo(Mix.POINTS_BATCH);
    SplittableRandom random = new SplittableRandom(5);
    int points = 0;
    for (int i = 0; i < 10_000; i++) {
      points += Mix.POINTS.pick(random) == Operation.POINT_READ ? 1 : 0;
    }
    assertThat(points).isBetween(4_300, 4_700);
  }
}
