package io.quiver.api.cli;

import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code quiver example board-page [--server URL]}: the Java client's example, against a running server. */
@Command(name = "example", mixinStandardHelpOptions = true,
    description = "Run one of the Java client's examples against a running server.")
final class ExampleCommand implements Callable<Integer> {
  @Parameters(paramLabel = "EXAMPLE", completionCandidates = Examples.class,
      description = "the example: ${COMPLETION-CANDIDATES}")
  String example;

  @Option(names = "--server", paramLabel = "URL", defaultValue = "http://localhost:8080",
      description = "the server (default ${DEFAULT-VALUE})")
  String server;

  static final class Examples implements Iterable<String> {
    @Override
    public java.util.Iterator<String> iterator() {
      return List.of("board-page").iterator();
    }
  }

  @Override
  public Integer call() {
    if (!example.equals("board-page")) {
      throw new CommandFailure(2, "the examples are: board-page");
    }
    io.quiver.client.example.BoardPage.main(new String[] {server});
    return 0;
  }
}
