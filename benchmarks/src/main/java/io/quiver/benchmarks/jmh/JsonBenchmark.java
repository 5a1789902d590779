package io.quiver.benchmarks.jmh;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.http.ApiJson;
import io.quiver.store.Edge;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import io.vertx.core.buffer.Buffer;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;

/** Rendering API answers: a Node, and a page of 50 edges. {@code ./bench jmh JsonBenchmark} */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class JsonBenchmark {
  private Node node;
  private List<Edge> page;

  @Setup
  public void setUp() throws Exception {
    ObjectMapper mapper = new ObjectMapper();
    ObjectNode data = (ObjectNode) mapper.readTree("{\"details\": \"New Star Wars character\","
        + " \"link\": \"http://webpage.com/asdf\", \"owner\": \"241294629943640797\", \"likes\": 1234,"
        + " \"tags\": [\"film\", \"scifi\"], \"nsfw\": false}");
    Instant now = Instant.parse("2026-11-21T10:00:00.123456Z");
    node = new Node(NodeId.of(3429, 1, 7075733), "pin", data, 3, now, now);
    page = new ArrayList<>();
    for (int i = 0; i < 50; i++) {
      page.add(new Edge(NodeId.of(12, 2, 500), "board_has_pins", NodeId.of(i % 8, 3, 1000 + i),
          1_732_183_200_000_000L - i, mapper.createObjectNode().put("note", ""), now));
    }
  }

  @Benchmark
  public Buffer node() {
    return ApiJson.buffer(ApiJson.node(node));
  }

  @Benchmark
  public Buffer edgePage50() {
    ObjectNode json = ApiJson.object();
    ArrayNode edges = json.putArray("edges");
    page.forEach(edge -> edges.add(ApiJson.edge(edge)));
    json.put("next", "AAZgwyBu0SAAAEAwAAAAAg");
    return ApiJson.buffer(json);
  }
}
