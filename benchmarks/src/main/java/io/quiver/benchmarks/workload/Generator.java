package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.benchmarks.ChildJvm;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.OutputStreamWriter;
import java.io.Writer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * The benchmark's end of the load generator ({@link GeneratorProcess}): starts it in a JVM of its
 * own ({@link ChildJvm}: a small heap and the serial collector, so it takes little of the machine), sends it one command at a time and waits for its answer.
 */
final class Generator implements AutoCloseable {
  /** One phase as the generator saw it: its length, the generator's CPU time, and what it recorded. */
  record Phase(double seconds, double cpuSeconds, Recording recording) {}

  /** A traced target's node hit ratio bounds ({@link BestPossible}). */
  record Bounds(double pinned, double best, long lookups) {}

  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Process process;
  private final Writer commands;
  private final BufferedReader answers;

  Generator(GeneratorSetup setup, Path directory) throws IOException {
    Path file = directory.resolve("generator-setup.json");
    setup.write(file);
    process = ChildJvm.of("768m", GeneratorProcess.class, file.toString())
        .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    commands = new OutputStreamWriter(process.getOutputStream(), StandardCharsets.UTF_8);
    answers = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8));
    answer();
  }

  /** A phase against {@code target}: closed loop of {@code concurrency} callers, or open at {@code rate}. */
  Phase phase(String target, int concurrency, Integer rate, Duration duration, boolean record) throws IOException {
    ObjectNode command = MAPPER.createObjectNode();
    command.put("phase", target);
    command.put("concurrency", concurrency);
    command.put("rate", rate);
    command.put("millis", duration.toMillis());
    command.put("record", record);
    JsonNode answer = send(command);
    return new Phase(answer.get("seconds").asDouble(), answer.get("cpuSeconds").asDouble(),
        answer.has("recording") ? Recording.fromJson(answer.get("recording")) : null);
  }

  /** The generator's process: its JVM's compiler and CPU can be read from outside. */
  ProcessHandle handle() {
    return process.toHandle();
  }

  Bounds bounds(String target, int capacity) throws IOException {
    ObjectNode command = MAPPER.createObjectNode();
    command.put("bounds", target);
    command.put("capacity", capacity);
    JsonNode answer = send(command);
    return new Bounds(answer.get("pinned").asDouble(), answer.get("best").asDouble(), answer.get("lookups").asLong());
  }

  private JsonNode send(ObjectNode command) throws IOException {
    commands.write(MAPPER.writeValueAsString(command));
    commands.write('\n');
    commands.flush();
    return answer();
  }

  /** The next JSON line; a line that is not JSON is a library's log line and is skipped. */
  private JsonNode answer() throws IOException {
    for (String line = answers.readLine(); line != null; line = answers.readLine()) {
      if (line.startsWith("{")) {
        return MAPPER.readTree(line);
      }
    }
    throw new IOException("the load generator's process ended (exit " + exitValue() + ")");
  }

  private String exitValue() {
    try {
      return Integer.toString(process.waitFor());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return "unknown";
    }
  }

  @Override
  public void close() throws IOException {
    commands.close();
    try {
      if (!process.waitFor(Duration.ofSeconds(20).toMillis(), TimeUnit.MILLISECONDS)) {
        process.destroyForcibly();
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
