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
    return ApiJson.render(out -> ApiJson.writeNode(out, node));
  }

  @Benchmark
  public Buffer edgePage50() {
    return ApiJson.render(out -> {
      out.writeStartObject();
      out.writeArrayFieldStart("edges");
      for (Edge edge : page) {
        ApiJson.writeEdge(out, edge);
      }
      out.writeEndArray();
      out.writeStringField("next", "AAZgwyBu0SAAAEAwAAAAAg");
      out.writeEndObject();
    });
  }

  /** The rendering this replaced: a Jackson tree per answer, then its bytes (for the ratio). */
  @Benchmark
  public Buffer edgePage50AsTree() {
    ObjectNode json = ApiJson.object();
    ArrayNode edges = json.putArray("edges");
    for (Edge edge : page) {
      ObjectNode one = edges.addObject();
      one.put("from", edge.from().toString());
      one.put("type", edge.type());
      one.put("to", edge.to().toString());
      one.put("sequence", edge.sequence());
      one.set("data", edge.data());
      one.put("updatedAt", TREE_TIMESTAMP.format(edge.updatedAt()));
    }
    json.put("next", "AAZgwyBu0SAAAEAwAAAAAg");
    return ApiJson.buffer(json);
  }

  private static final java.time.format.DateTimeFormatter TREE_TIMESTAMP = java.time.format.DateTimeFormatter
      .ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(java.time.ZoneOffset.UTC);
}
