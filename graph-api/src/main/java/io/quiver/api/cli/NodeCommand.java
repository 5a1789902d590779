package io.quiver.api.cli;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.http.ApiJson;
import io.quiver.client.Node;
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
    int run(PrintWriter out) {
      Node node = remote.client().getNode(id);
      ObjectNode document = ApiJson.object().put("id", Long.toString(node.id())).put("type", node.type())
          .put("shard", node.shard());
      document.set("data", node.data());
      document.put("version", node.version()).put("createdAt", ApiJson.timestamp(node.createdAt()))
          .put("updatedAt", ApiJson.timestamp(node.updatedAt()));
      printJson(out, document);
      return 0;
    }
  }
}
