package io.quiver.api.cli;

import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

/** {@code quiver node get ID}: one node as the API answers it (its data with defaults, its version). */
@Command(name = "node", mixinStandardHelpOptions = true, description = "Nodes.", subcommands = {NodeCommand.Get.class})
final class NodeCommand extends CommandGroup {

  @Command(name = "get", mixinStandardHelpOptions = true, description = "One node, by ID.")
  static final class Get extends RemoteCommand {
    @Parameters(paramLabel = "ID", description = "the node's ID")
    long id;

    @Override
    int run(AdminHttp server, PrintWriter out) {
      printJson(out, server.get("/v1/nodes/" + id));
      return 0;
    }
  }
}
