package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;

/**
 * What the load generator's process starts from, written to a file by the benchmark: the loaded
 * graph as the primer left it, the mix, and how to reach each target.
 *
 * @param nodes node IDs by popularity rank
 * @param knownEdges some known targets per node, for updates and removals
 * @param shardMap the shard map as ZooKeeper holds it, for the in-process {@code jdbc} target
 * @param connections connections per target: the deepest loop of the run
 */
record GeneratorSetup(String mix, List<Long> nodes, Map<Long, List<Long>> knownEdges, List<TargetSpec> targets,
    JsonNode shardMap, int connections) {

  /**
   * One target as the generator reaches it.
   *
   * @param kind {@code api}: the Quiver API over HTTP ({@link HttpTarget}); {@code bare}: one GET
   *     a call ({@link BareTarget}); {@code jdbc}: hand-written SQL in the generator's own process
   *     ({@link JdbcTarget})
   * @param traced its node reads are traced ({@link TracingTarget})
   */
  record TargetSpec(String name, String kind, int port, boolean traced) {
    static TargetSpec api(String name, int port) {
      return new TargetSpec(name, "api", port, false);
    }
  }

  private static final ObjectMapper MAPPER = new ObjectMapper();

  void write(Path file) throws IOException {
    MAPPER.writeValue(file.toFile(), this);
  }

  static GeneratorSetup read(Path file) throws IOException {
    return MAPPER.readValue(file.toFile(), GeneratorSetup.class);
  }
}
