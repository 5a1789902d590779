package io.quiver.api.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The command line as a person meets it, in a process of its own: a failure is one line on
 * standard error and a non-zero status, never a stack trace.
 */
class CommandLineTest {

  private record Outcome(int status, List<String> errors) {}

  private static Outcome quiver(String... args) throws Exception {
    List<String> command = new ArrayList<>(List.of(ProcessHandle.current().info().command().orElse("java"), "-cp",
        System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(List.of(args));
    Process process = new ProcessBuilder(command).redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
    String errors = new String(process.getErrorStream().readAllBytes(), StandardCharsets.UTF_8);
    assertThat(process.waitFor(60, TimeUnit.SECONDS)).isTrue();
    return new Outcome(process.exitValue(), errors.lines().filter(line -> !line.isBlank()).toList());
  }

  @Test
  void aMistypedCommand_isOneLineAndTheUsage_withStatus2() throws Exception {
    Outcome outcome = quiver("repiar");

    assertThat(outcome.status()).isEqualTo(2);
    assertThat(outcome.errors().get(0)).isEqualTo("quiver: unknown command 'repiar'; did you mean 'repair'?");
    assertThat(outcome.errors()).noneMatch(line -> line.trim().startsWith("at "));
  }

  @Test
  void aConfigurationWithAnUnknownKey_isOneLineNamingTheNearestKnownOne_withStatus1() throws Exception {
    Path config = Files.createTempFile("quiver-cli", ".json");
    Files.writeString(config, "{\"zooKeeper\": {\"connect\": \"127.0.0.1:1\", \"sesionTimeoutMs\": 5}}");

    Outcome outcome = quiver("provision", "--config", config.toString());

    assertThat(outcome.status()).isEqualTo(1);
    assertThat(outcome.errors()).hasSize(1);
    assertThat(outcome.errors().get(0)).startsWith("quiver: ").contains("sesionTimeoutMs")
        .contains("sessionTimeoutMs");
  }
}
