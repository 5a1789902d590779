package io.quiver.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * A load generator's JVM: the same {@code java} and class path as this one, so that what the
 * generator costs is measured apart from what it measures. The hot path's and the workload's
 * generators both start here.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** The command that runs {@code main} with {@code arguments}, small heap and serial collector. */
  public static ProcessBuilder of(String heap, Class<?> main, String... arguments) {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"),
        "-Xmx" + heap, "-XX:+UseSerialGC", "-cp", System.getProperty("java.class.path"), main.getName()));
    command.addAll(List.of(arguments));
    return new ProcessBuilder(command);
  }
}
