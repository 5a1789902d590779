package io.quiver.api.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code quiver outbox status | retry-parked [--host H]}: each host's inverse-edge outbox —
 * pending, parked, the oldest's age — and parked entries tried again once their cause is fixed.
 */
@Command(name = "outbox", mixinStandardHelpOptions = true, description = "The outboxes of inverse edges.",
    subcommands = {OutboxCommand.Status.class, OutboxCommand.RetryParked.class})
final class OutboxCommand extends CommandGroup {

  @Command(name = "status", mixinStandardHelpOptions = true,
      description = "Pending and parked entries per host, and how old the oldest pending one is.")
  static final class Status extends RemoteCommand {
    @Override
    int run(PrintWriter out) {
      return StatusCommand.printHosts(this, out, StatusCommand::outboxTable);
    }
  }

  @Command(name = "retry-parked", mixinStandardHelpOptions = true,
      description = "Try parked entries again now, their attempts counted afresh (after fixing their cause).")
  static final class RetryParked extends RemoteCommand {
    @Option(names = "--host", paramLabel = "H", description = "only this host's shards (default: every host)")
    String host;

    @Override
    int run(PrintWriter out) {
      long retried = remote.admin().retryParked(host).await();
      out.printf("%d parked entries %s due again%n", retried, host == null ? "on every host are" : "on " + host + " are");
      out.flush();
      return 0;
    }
  }
}
