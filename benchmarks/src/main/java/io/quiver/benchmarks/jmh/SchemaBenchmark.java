package io.quiver.benchmarks.jmh;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.schema.Fields;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.Violation;
import io.quiver.store.NodeId;
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

/**
 * Validating a realistic 20-field node against its type, and applying defaults on read to a
 * node stored before half of its fields existed. {@code ./bench jmh SchemaBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class SchemaBenchmark {
  private NodeType pin;
  private Fields.IdTypes ids;
  private ObjectNode full;
  private ObjectNode stored;

  @Setup
  public void setUp() throws Exception {
    StringBuilder fields = new StringBuilder();
    StringBuilder data = new StringBuilder();
    String[] kinds = {"string", "integer", "boolean", "number", "array"};
    String[] values = {"\"text value\"", "42", "true", "3.5", "[1, 2, 3]"};
    for (int i = 0; i < 19; i++) {
      String kind = kinds[i % kinds.length];
      fields.append(i == 0 ? "" : ", ").append("\"f").append(i).append("\": {\"type\": \"").append(kind)
          .append("\"").append(i % 2 == 0 ? ", \"default\": " + values[i % values.length] : "").append("}");
      data.append(i == 0 ? "" : ", ").append("\"f").append(i).append("\": ").append(values[i % values.length]);
    }
    Schema schema = SchemaJson.parse("{\"nodeTypes\": {\"user\": {\"id\": 1}, \"pin\": {\"id\": 3, \"fields\": {"
        + fields + ", \"owner\": {\"type\": \"id\", \"nodeType\": \"user\", \"required\": true}}}}}");
    pin = schema.nodeType("pin").orElseThrow();
    ids = NodeId.idTypes(schema);
    ObjectMapper mapper = new ObjectMapper();
    full = (ObjectNode) mapper.readTree("{" + data + ", \"owner\": \"" + NodeId.of(5, 1, 99) + "\"}");
    stored = full.deepCopy();
    for (int i = 0; i < 19; i += 2) {
      stored.remove("f" + i);
    }
  }

  @Benchmark
  public List<Violation> validate20Fields() {
    return pin.validate(full, ids);
  }

  @Benchmark
  public ObjectNode applyDefaults() {
    return pin.withDefaults(stored);
  }
}
