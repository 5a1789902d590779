package io.quiver.api.cli;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.ApiFixture;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/** {@code quiver example board-page --server URL} runs the client's example against that server. */
class ExampleCommandTest {

  @Test
  void boardPage_withServer_runsAgainstThatServer_andPrintsTheBoard() throws Exception {
    PrintStream console = System.out;
    ByteArrayOutputStream printed = new ByteArrayOutputStream();
    try (ApiFixture api = new ApiFixture()) {
      System.setOut(new PrintStream(printed, true, StandardCharsets.UTF_8));
      assertThat(Cli.quiver("example", "board-page", "--server", "http://127.0.0.1:" + api.port()).status()).isZero();
    } finally {
      System.setOut(console);
    }

    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("Ada's board \"Weeknight dinners\" (5 pins)");
  }

  @Test
  void boardPage_withAnUnknownOption_isAUsageError() {
    Cli.Run run = Cli.quiver("example", "board-page", "--serve", "http://x");

    assertThat(run.status()).isEqualTo(2);
    assertThat(run.err()).startsWith("quiver: Unknown options: '--serve'");
  }
}
