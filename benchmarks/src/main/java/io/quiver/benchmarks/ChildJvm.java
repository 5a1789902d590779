package io.quiver.benchmarks;

import java.util.ArrayList;
import java.util.List;

/**
 * A JVM of the benchmark's own: the same {@code java} and class path as this one. Load generators
 * start here, so that what they cost is measured apart from what they measure (the hot path's and
 * the workload's); so does every server the workload measures, each in a JVM of its own as it
 * would be deployed, its CPU read from the operating system.
 */
public final class ChildJvm {
  private ChildJvm() {}

  /** The command that runs {@code main} with {@code arguments}, small heap and serial collector. */
  public static ProcessBuilder of(String heap, Class<?> main, String... arguments) {
    return command(List.of("-Xmx" + heap, "-XX:+UseSerialGC"), main, arguments);
  }

  /**
   * The command that runs a server's {@code main}: the JVM's default collector, as a server is
   * deployed, with {@code heap} at most and the JVM {@code options} given.
   */
  public static ProcessBuilder server(String heap, List<String> options, Class<?> main, String... arguments) {
    return command(serverOptions(heap, options), main, arguments);
  }

  /** {@link #server}, running another build's executable {@code jar} ({@code java -jar}) instead of a class of this one. */
  public static ProcessBuilder server(String heap, List<String> options, java.nio.file.Path jar, String... arguments) {
    return command(serverOptions(heap, options), List.of("-jar", jar.toString()), arguments);
  }

  private static List<String> serverOptions(String heap, List<String> options) {
    List<String> all = new ArrayList<>(List.of("-Xmx" + heap));
    all.addAll(options);
    return all;
  }

  private static ProcessBuilder command(List<String> options, Class<?> main, String... arguments) {
    return command(options, List.of("-cp", System.getProperty("java.class.path"), main.getName()), arguments);
  }

  private static ProcessBuilder command(List<String> options, List<String> what, String... arguments) {
    List<String> command = new ArrayList<>();
    command.add(ProcessHandle.current().info().command().orElse("java"));
    command.addAll(options);
    command.add("-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"));
    command.addAll(what);
    command.addAll(List.of(arguments));
    return new ProcessBuilder(command);
  }
}
