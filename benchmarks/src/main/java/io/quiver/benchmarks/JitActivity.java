package io.quiver.benchmarks;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * How much a JVM's just-in-time compiler has done so far, read from outside it with the JDK's
 * {@code jstat -compiler}: how the workload shows that a warm-up was long enough — a server whose
 * compiler is still busy during a measured phase is measuring the compiler.
 *
 * @param compiled methods compiled so far
 * @param seconds time spent compiling so far
 */
public record JitActivity(long compiled, double seconds) {

  /** What the compiler did between {@code earlier} and this reading. */
  public JitActivity since(JitActivity earlier) {
    return new JitActivity(compiled - earlier.compiled, seconds - earlier.seconds);
  }

  /** The process's reading, or empty where the JDK has no {@code jstat} or the process has ended. */
  public static Optional<JitActivity> of(ProcessHandle process) {
    Path jstat = Path.of(ProcessHandle.current().info().command().orElse("java")).resolveSibling("jstat");
    if (!Files.isExecutable(jstat)) {
      return Optional.empty();
    }
    try {
      Process run = new ProcessBuilder(jstat.toString(), "-compiler", Long.toString(process.pid()))
          .redirectErrorStream(true).start();
      String out = new String(run.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
      if (!run.waitFor(20, TimeUnit.SECONDS) || run.exitValue() != 0) {
        return Optional.empty();
      }
      // Compiled Failed Invalid   Time   FailedType FailedMethod
      String[] lines = out.strip().split("\n");
      String[] values = lines[lines.length - 1].trim().split("\\s+");
      return Optional.of(new JitActivity(Long.parseLong(values[0]), Double.parseDouble(values[3])));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }
}
