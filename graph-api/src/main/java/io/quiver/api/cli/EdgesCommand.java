package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code quiver edges list FROM TYPE}: a page of a node's edges of one type, newest first, with the count. */
@Command(name = "edges", mixinStandardHelpOptions = true, description = "Edge lists.",
    subcommands = {EdgesCommand.List.class})
final class EdgesCommand extends CommandGroup {

  @Command(name = "list", mixinStandardHelpOptions = true, description = "A page of FROM's edges of TYPE, newest first.")
  static final class List extends RemoteCommand {
    @Parameters(index = "0", paramLabel = "FROM", description = "the node the edges leave")
    long from;

    @Parameters(index = "1", paramLabel = "TYPE", description = "the edge type")
    String type;

    @Option(names = "--limit", defaultValue = "20", description = "edges on the page (default ${DEFAULT-VALUE})")
    int limit;

    @Option(names = "--after", paramLabel = "CURSOR", description = "the page after this one's \"next\"")
    String after;

    @Override
    int run(AdminHttp server, PrintWriter out) {
      String list = "/v1/nodes/" + from + "/edges/" + URLEncoder.encode(type, StandardCharsets.UTF_8);
      JsonNode page = server.get(list + "?limit=" + limit
          + (after == null ? "" : "&after=" + URLEncoder.encode(after, StandardCharsets.UTF_8)));
      if (json) {
        printJson(out, page);
        return 0;
      }
      long count = server.get(list + "/count").path("count").asLong();
      Table table = new Table("TO", "SEQUENCE", "STATE", "UPDATED", "DATA");
      for (JsonNode edge : page.path("edges")) {
        table.row(edge.path("to").asText(), edge.path("sequence").asText(), edge.path("state").asText("active"),
            edge.path("updatedAt").asText(), edge.path("data").isMissingNode() ? "{}" : edge.path("data").toString());
      }
      out.printf("%d has %d %s edges%n", from, count, type);
      table.print(out);
      if (page.hasNonNull("next")) {
        out.println("more: --after " + page.get("next").asText());
      }
      return 0;
    }
  }
}
