package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.benchmarks.CpuTime;
import io.quiver.dev.DevStack;
import io.quiver.store.shard.ShardMapJson;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The load generator, in a JVM of its own so that what it costs is not charged to the servers it
 * measures, and so that the report can say what it cost: the {@link Driver}, the targets' clients
 * and the in-process {@code jdbc} target live here; the servers, MariaDB and ZooKeeper do not.
 *
 * <p>It reads a {@link GeneratorSetup} file, then one JSON command a line on stdin and answers each
 * with one JSON line on stdout ({@link Generator} is the other end):
 * <ul>
 *   <li>{@code {"phase": TARGET, "concurrency": N, "rate": R|null, "millis": M, "record": B}} —
 *       a closed loop of N callers (or an open loop at R a second) for M ms; answers
 *       {@code {"seconds", "cpuSeconds", "recording"?}}, its own CPU time over the phase included.
 *       A phase not recorded is a warm-up: a traced target's trace restarts with it.</li>
 *   <li>{@code {"bounds": TARGET, "capacity": N}} — a traced target's node hit ratio bounds for its
 *       measured trace ({@link BestPossible}); answers {@code {"pinned", "best", "lookups"}}.</li>
 * </ul>
 * Anything else on stdout (a library's log line) is not JSON and is skipped by the other end.
 */
public final class GeneratorProcess {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private GeneratorProcess() {}

  public static void main(String[] args) throws Exception {
    GeneratorSetup setup = GeneratorSetup.read(Path.of(args[0]));
    // Two event loops: enough to keep a loop of 128 callers fed, and a small share of two cores.
    Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(2));
    Graph graph = new Graph(setup.nodes(), Graph.READ_SHAPE, Graph.WRITE_SHAPE);
    graph.knowEdges(setup.knownEdges());
    Map<String, Target> targets = new LinkedHashMap<>();
    for (GeneratorSetup.TargetSpec spec : setup.targets()) {
      Target target = switch (spec.kind()) {
        case "api" -> new HttpTarget(spec.name(), vertx, spec.port(), setup.connections(), graph);
        case "bare" -> new BareTarget(vertx, spec.port(), setup.connections());
        case "jdbc" -> new JdbcTarget(ShardMapJson.parse(MAPPER.writeValueAsBytes(setup.shardMap())),
            DevStack.exampleSchema(), graph, setup.connections(), false);
        default -> throw new IllegalArgumentException("unknown target kind " + spec.kind());
      };
      targets.put(spec.name(), spec.traced() ? new TracingTarget(target) : target);
    }
    Driver driver = new Driver(vertx, graph, Mix.of(setup.mix()));
    PrintStream answers = new PrintStream(System.out, true, StandardCharsets.UTF_8);
    answers.println("{\"ready\": true}");
    BufferedReader commands = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = commands.readLine(); line != null; line = commands.readLine()) {
      JsonNode command = MAPPER.readTree(line);
      ObjectNode answer = command.has("phase") ? phase(driver, targets.get(command.get("phase").asText()), command)
          : bounds((TracingTarget) targets.get(command.get("bounds").asText()), command.get("capacity").asInt());
      answers.println(MAPPER.writeValueAsString(answer));
    }
    targets.values().forEach(Target::close);
    vertx.close().await();
    System.exit(0);
  }

  private static ObjectNode phase(Driver driver, Target target, JsonNode command) {
    boolean record = command.get("record").asBoolean();
    if (target instanceof TracingTarget traced) {
      if (record) {
        traced.measuring();
      } else {
        traced.restart();
      }
    }
    Recording recording = record ? new Recording() : null;
    Duration duration = Duration.ofMillis(command.get("millis").asLong());
    double cpuBefore = CpuTime.thisProcess();
    long started = System.nanoTime();
    if (command.hasNonNull("rate")) {
      driver.openLoop(target, command.get("rate").asInt(), duration, recording).await();
    } else {
      driver.closedLoop(target, command.get("concurrency").asInt(), duration, recording).await();
    }
    ObjectNode answer = MAPPER.createObjectNode();
    answer.put("seconds", (System.nanoTime() - started) / 1e9);
    answer.put("cpuSeconds", CpuTime.thisProcess() - cpuBefore);
    if (recording != null) {
      answer.set("recording", recording.toJson());
    }
    return answer;
  }

  private static ObjectNode bounds(TracingTarget traced, int capacity) {
    ObjectNode answer = MAPPER.createObjectNode();
    answer.put("pinned", traced.pinnedHitRatio(capacity));
    answer.put("best", traced.bestHitRatio(capacity));
    answer.put("lookups", traced.measuredLookups());
    return answer;
  }
}
