package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import me.tongfei.progressbar.ProgressBar;
import me.tongfei.progressbar.ProgressBarBuilder;
import me.tongfei.progressbar.ProgressBarStyle;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver repair EDGE_TYPE} and {@code quiver repair --unique TYPE.FIELD}: FriendFeed's
 * Cleaner, over an edge type and its inverse (missing or differing copies) or over a unique
 * field's index (missing and orphaned claims, values held twice; an index still building turns
 * active when none are). Through a running server's admin API with a progress bar, or with
 * {@code --config FILE} in this process (progress lines), its fixes announced to the servers'
 * caches either way. Exits 3 when values are held twice.
 */
@Command(name = "repair", mixinStandardHelpOptions = true,
    description = "Find and fix inverse edges that are missing or differ, or a unique index's claims.")
final class RepairCommand extends RemoteCommand {
  @Parameters(arity = "0..1", paramLabel = "EDGE_TYPE", description = "the edge type whose inverses to repair")
  String edgeType;

  @Option(names = "--edge-type", paramLabel = "NAME", hidden = true, description = "the same as EDGE_TYPE")
  String edgeTypeOption;

  @Option(names = "--unique", paramLabel = "TYPE.FIELD", description = "repair a unique field's index instead")
  String unique;

  @Option(names = "--config", paramLabel = "FILE",
      description = "run in this process over the fleet this configuration names, not through a server")
  Path config;

  @Override
  int run(AdminHttp server, PrintWriter out) throws Exception {
    String edges = edgeType != null ? edgeType : edgeTypeOption;
    if ((edges == null) == (unique == null)) {
      throw new CommandFailure(2, "repair needs an EDGE_TYPE or --unique TYPE.FIELD (one of them)");
    }
    String[] typeAndField = unique == null ? null : typeAndField(unique);
    JsonNode report = config != null
        ? local(edges, typeAndField, out)
        : remote(server, unique == null
            ? "/v1/admin/repair/" + encode(edges)
            : "/v1/admin/unique/" + encode(typeAndField[0]) + "/" + encode(typeAndField[1]) + "/repair");
    if (json) {
      printJson(out, report);
    } else {
      summarize(report, out);
    }
    return report.path("duplicates").isEmpty() ? 0 : 3;
  }

  private JsonNode local(String edges, String[] typeAndField, PrintWriter out) throws Exception {
    Object report = new LocalFleet(config).withBackend(backend -> typeAndField == null
        ? backend.admin().repair(edges, line -> progress(out, line)).await()
        : backend.admin().repairUnique(typeAndField[0], typeAndField[1], line -> progress(out, line)).await());
    return AdminHttp.JSON.valueToTree(report);
  }

  private static void progress(PrintWriter out, String line) {
    out.println(line);
    out.flush();
  }

  /** The server's NDJSON progress under a bar (a line per shard and pass), then its summary. */
  static JsonNode remote(AdminHttp server, String path) {
    return remote(server, path, "repair");
  }

  /** As {@link #remote(AdminHttp, String)}, the bar named {@code task}. */
  static JsonNode remote(AdminHttp server, String path, String task) {
    int shards = server.get("/v1/admin/shard-map").path("ranges").findValues("to").stream()
        .mapToInt(JsonNode::asInt).max().orElse(0) + 1;
    try (ProgressBar bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(2L * shards)
        .setUnit(" shards", 1).setStyle(ProgressBarStyle.ASCII).showSpeed().build()) {
      JsonNode last = server.stream("POST", path, line -> {
        // A line per shard and pass steps the bar; the closing "done: …" line is the summary's, not a step.
        if (line.has("progress") && !line.get("progress").asText().startsWith("done")) {
          bar.step();
          bar.setExtraMessage(line.get("progress").asText().replaceAll(";.*", ""));
        }
      });
      bar.stepTo(bar.getMax());
      if (last == null || !last.has("summary")) {
        throw new CommandFailure(1, "the repair ended without its summary: "
            + (last == null ? "no answer" : last.path("error").asText(last.toString())));
      }
      return last.get("summary");
    }
  }

  static void summarize(JsonNode report, PrintWriter out) {
    if (report.has("edgeType")) {
      out.printf("repair of %s: %d rows scanned, %d missing inverses, %d differing pairs, %d orphaned inverses,"
              + " %d pairs in flight (left to their outbox entries), %d copies fixed%n",
          report.path("edgeType").asText(), report.path("scanned").asLong(), report.path("missingInverse").asLong(),
          report.path("differing").asLong(), report.path("orphanedInverse").asLong(), report.path("inFlight").asLong(),
          report.path("fixed").asLong());
    } else {
      out.printf("repair of %s.%s: %d nodes and %d claims scanned, %d claims restored, %d orphaned claims removed,"
              + " %d in flight (younger than the lease), %d values held twice; the index is %s%n",
          report.path("type").asText(), report.path("field").asText(), report.path("nodesScanned").asLong(),
          report.path("claimsScanned").asLong(), report.path("claimsRestored").asLong(),
          report.path("orphansRemoved").asLong(), report.path("inFlight").asLong(), report.path("duplicates").size(),
          report.path("active").asBoolean() ? "active" : "building");
      for (JsonNode duplicate : report.path("duplicates")) {
        java.util.List<String> nodes = new java.util.ArrayList<>();
        duplicate.path("nodes").forEach(node -> nodes.add(node.asText()));
        out.printf("  %s is held by %s%n", duplicate.path("value").asText(), String.join(", ", nodes));
      }
    }
    out.flush();
  }

  private static String[] typeAndField(String text) {
    int dot = text.indexOf('.');
    if (dot <= 0 || dot == text.length() - 1) {
      throw new CommandFailure(2, "--unique takes TYPE.FIELD, as user.username");
    }
    return new String[] {text.substring(0, dot), text.substring(dot + 1)};
  }

  private static String encode(String segment) {
    return URLEncoder.encode(segment, StandardCharsets.UTF_8);
  }
}
