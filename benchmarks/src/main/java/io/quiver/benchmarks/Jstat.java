package io.quiver.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;

/**
 * The JDK's {@code jstat} run against another JVM: one reading of an option's columns, by name —
 * how the workload sees a server's compiler ({@link JitActivity}) and collector ({@link GcActivity})
 * without touching the server.
 */
final class Jstat {
  private Jstat() {}

  /**
   * What {@code reading} makes of the columns of {@code jstat <option> <pid>}; empty where the JDK
   * has no jstat, the process has ended, or the columns are not what {@code reading} expects.
   */
  static <T> Optional<T> read(ProcessHandle process, String option, Function<Map<String, String>, T> reading) {
    Path jstat = Path.of(ProcessHandle.current().info().command().orElse("java")).resolveSibling("jstat");
    if (!Files.isExecutable(jstat)) {
      return Optional.empty();
    }
    try {
      Process run = new ProcessBuilder(jstat.toString(), option, Long.toString(process.pid()))
          .redirectErrorStream(true).start();
      String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!run.waitFor(20, TimeUnit.SECONDS) || run.exitValue() != 0) {
        return Optional.empty();
      }
      String[] lines = out.strip().split("\n");
      String[] names = lines[0].trim().split("\\s+");
      String[] values = lines[lines.length - 1].trim().split("\\s+");
      Map<String, String> columns = new HashMap<>();
      for (int i = 0; i < Math.min(names.length, values.length); i++) {
        columns.put(names[i], values[i]);
      }
      return Optional.of(reading.apply(columns));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
