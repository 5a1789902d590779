package io.quiver.api.cli;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.http.ApiJson;
import io.quiver.client.Edge;
import io.quiver.client.EdgePage;
import io.quiver.client.EdgeQuery;
import java.io.PrintWriter;
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
    int run(PrintWriter out) {
      EdgeQuery query = EdgeQuery.newestFirst().limit(limit);
      EdgePage page = remote.client().getEdges(from, type, after == null ? query : query.after(after));
      if (json) {
        ArrayNode edges = ApiJson.MAPPER.createArrayNode();
        page.edges().forEach(edge -> edges.addObject().put("from", Long.toString(edge.from())).put("type", edge.type())
            .put("to", Long.toString(edge.to())).put("sequence", edge.sequence()).put("archived", edge.archived())
            .put("updatedAt", ApiJson.timestamp(edge.updatedAt())).set("data", edge.data()));
        ObjectNode document = ApiJson.object();
        document.set("edges", edges);
        document.put("next", page.next());
        printJson(out, document);
        return 0;
      }
      long count = remote.client().countEdges(from, type);
      Table table = new Table("TO", "SEQUENCE", "STATE", "UPDATED", "DATA");
      for (Edge edge : page.edges()) {
        table.row(Long.toString(edge.to()), Long.toString(edge.sequence()), edge.archived() ? "archived" : "active",
            ApiJson.timestamp(edge.updatedAt()), edge.data() == null ? "{}" : edge.data().toString());
      }
      out.printf("%d has %d %s edges%n", from, count, type);
      table.print(out);
      if (page.next() != null) {
        out.println("more: --after " + page.next());
      }
      return 0;
    }
  }
}
