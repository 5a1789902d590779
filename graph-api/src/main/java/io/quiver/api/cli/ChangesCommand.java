package io.quiver.api.cli;

import io.quiver.client.ChangeEvent;
import io.quiver.client.QuiverClient;
import java.io.PrintWriter;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;

/**
 * {@code quiver changes [--after CURSOR] [--follow [--group G --member M]] [--types a,b]}: the change
 * log, one JSON line per event, each with the cursor to resume after it; with {@code --follow}, as
 * changes are logged until interrupted; as a member of a consumer group, the events of the shards the
 * group deals it, committing what it printed at most once a second (and while idle), so a member
 * restarted — or another taking its shards — goes on from there.
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

  @Option(names = "--group", paramLabel = "GROUP", description = "with --follow and --member: follow as a member of"
      + " this consumer group, which splits the shards among its members and keeps what each printed")
  String group;

  @Option(names = "--member", paramLabel = "NAME", description = "this consumer's name in --group")
  String member;

  /** How often a group member commits what it printed. */
  private static final long COMMIT_EVERY_NANOS = 1_000_000_000L;

  @Override
  int run(PrintWriter out) {
    QuiverClient quiver = remote.client();
    List<String> only = types == null ? List.of() : Arrays.asList(types.split(","));
    if (group != null || member != null) {
      if (group == null || member == null || !follow) {
        throw new ParameterException(spec.commandLine(), "--group and --member go together, with --follow");
      }
      return followGroup(quiver, only, out);
    }
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

  private int followGroup(QuiverClient quiver, List<String> only, PrintWriter out) {
    long committedAt = System.nanoTime();
    String uncommitted = null;
    try (Stream<ChangeEvent> events = quiver.followGroup(group, member, after, only)) {
      for (Iterator<ChangeEvent> next = events.iterator(); next.hasNext(); ) {
        ChangeEvent event = next.next();
        if (!event.heartbeat() && !event.assigned()) {
          out.println(event.event());
          out.flush();
          uncommitted = event.cursor();
        }
        if (uncommitted != null && (event.heartbeat() || System.nanoTime() - committedAt >= COMMIT_EVERY_NANOS)) {
          quiver.commit(group, member, uncommitted);
          uncommitted = null;
          committedAt = System.nanoTime();
        }
      }
    }
    return 0;
  }
}
