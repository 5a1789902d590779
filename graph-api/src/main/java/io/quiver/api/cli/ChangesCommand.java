package io.quiver.api.cli;

import io.quiver.client.ChangeEvent;
import io.quiver.client.QuiverClient;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code quiver changes [--after CURSOR] [--follow] [--types a,b]}: the change log, one JSON line per
 * event, each with the cursor to resume after it; with {@code --follow}, as changes are logged until
 * interrupted.
 */
@Command(name = "changes", mixinStandardHelpOptions = true,
    description = "The change log: one JSON line per committed change, each with the cursor to resume after it.")
final class ChangesCommand extends RemoteCommand {
  @Option(names = "--after", paramLabel = "CURSOR", description = "resume after this cursor (an event's), or 'now';"
      + " default: from the start of what the log keeps")
  String after;

  @Option(names = "--follow", description = "keep printing changes as they are logged, until interrupted")
  boolean follow;

  @Option(names = "--types", paramLabel = "TYPE[,TYPE…]", description = "only changes of these node and edge types")
  String types;

  @Option(names = "--limit", paramLabel = "N", description = "without --follow, at most this many (default 100)")
  int limit = 100;

  @Override
  int run(PrintWriter out) {
    QuiverClient quiver = remote.client();
    List<String> only = types == null ? List.of() : Arrays.asList(types.split(","));
    if (!follow) {
      QuiverClient.ChangePage page = quiver.changes(after, only, limit);
      page.events().forEach(event -> out.println(event.event()));
      out.flush();
      return 0;
    }
    try (Stream<ChangeEvent> events = quiver.follow(after, only)) {
      events.filter(event -> !event.heartbeat()).forEach(event -> {
        out.println(event.event());
        out.flush();
      });
    }
    return 0;
  }
}
