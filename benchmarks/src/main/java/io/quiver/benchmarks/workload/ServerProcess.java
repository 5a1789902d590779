package io.quiver.benchmarks.workload;

import io.quiver.benchmarks.ChildJvm;
import io.quiver.benchmarks.CpuTime;
import java.io.IOException;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * One measured server in a JVM of its own ({@link ChildJvm#server}), as it would be deployed:
 * Quiver is started as its own command line starts it ({@code quiver serve --config FILE}), the
 * baselines through {@link ServerMain}. Its output goes to a log file beside the data; its CPU is
 * read from the operating system, so each target is charged for its own process only.
 */
final class ServerProcess implements AutoCloseable {
  /** Each server's heap ceiling: the same for every target. */
  static final String HEAP = "1g";
  private static final Duration START_TIMEOUT = Duration.ofMinutes(2);

  private final String name;
  private final Process process;
  private final int port;
  private final Path log;

  /** Starts the JVM; {@link #awaitListening} waits for it to serve, so that several start side by side. */
  private ServerProcess(String name, ProcessBuilder command, int port, Path log) throws IOException {
    this.name = name;
    this.port = port;
    this.log = log;
    this.process = command.redirectErrorStream(true).redirectOutput(log.toFile()).start();
  }

  /**
   * A Quiver server: {@code quiver serve --config FILE}, logging as its jar ships it ({@code
   * logback}: the access log on) to its log file; this build's, or that of {@code jar} (another
   * build's {@code quiver.jar}) when it is not null.
   */
  static ServerProcess quiver(String name, Path config, int port, Path log, Path logback, Path jar)
      throws IOException {
    List<String> options = List.of("-Dlogback.configurationFile=" + logback);
    String[] serve = {"serve", "--config", config.toString()};
    return new ServerProcess(name, jar == null ? ChildJvm.server(HEAP, options, io.quiver.api.cli.Main.class, serve)
        : ChildJvm.server(HEAP, options, jar, serve), port, log);
  }

  /** One of the benchmark's own servers ({@link ServerMain}): {@code jdbc-http}, {@code lookaside} or the bare one. */
  static ServerProcess baseline(String name, int port, Path log, String... arguments) throws IOException {
    return new ServerProcess(name, ChildJvm.server(HEAP, List.of(), ServerMain.class, arguments), port, log);
  }

  ProcessHandle handle() {
    return process.toHandle();
  }

  String name() {
    return name;
  }

  int port() {
    return port;
  }

  /** The CPU this server's JVM has used so far, in seconds. */
  double cpuSeconds() {
    return CpuTime.of(handle());
  }

  /** Waits until it accepts connections on its port; fails if it ends or takes longer than two minutes. */
  ServerProcess awaitListening() throws IOException {
    long deadline = System.nanoTime() + START_TIMEOUT.toNanos();
    while (System.nanoTime() < deadline) {
      if (!process.isAlive()) {
        throw new IOException(name + " ended during its start (exit " + process.exitValue() + "); see " + log);
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress("127.0.0.1", port), 200);
        return this;
      } catch (IOException notYet) {
        sleep();
      }
    }
    process.destroyForcibly();
    throw new IOException(name + " did not listen on " + port + " within " + START_TIMEOUT + "; see " + log);
  }

  private static void sleep() {
    try {
      Thread.sleep(100);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException(e);
    }
  }

  /** Stops it as an operator would (SIGTERM: Quiver drains and closes), forcibly after 30 s. */
  @Override
  public void close() {
    process.destroy();
    try {
      if (!process.waitFor(30, TimeUnit.SECONDS)) {
        process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      process.destroyForcibly();
    }
  }
}
