package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.PrintWriter;
import java.util.HashMap;
import java.util.Map;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code quiver shards list | open | state | move | drop-retired}: the shard map as ranges per host
 * with their states, the changes an operator makes to it, and moving shards between hosts online.
 * Each change is compare-and-set on the map's version; {@code --if-version N} makes it only against
 * the map you looked at.
 */
@Command(name = "shards", mixinStandardHelpOptions = true,
    description = "The shard map: list it, open shards, set states, move shards between hosts.",
    subcommands = {ShardsCommand.List.class, ShardsCommand.Open.class, ShardsCommand.State.class,
        ShardsCommand.Move.class, ShardsCommand.DropRetired.class})
final class ShardsCommand extends CommandGroup {

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "The shards as runs of one host, state and openness to new nodes.")
  static final class List extends RemoteCommand {
    @Override
    int run(AdminHttp server, PrintWriter out) {
      JsonNode map = server.get("/v1/admin/shard-map");
      if (json) {
        printJson(out, map);
      } else {
        print(map, out, "");
      }
      return 0;
    }
  }

  @Command(name = "open", mixinStandardHelpOptions = true,
      description = "Open new shards on a host, right after (or before) the map's; their tables are created first.")
  static final class Open extends RemoteCommand {
    @Parameters(paramLabel = "SHARDS", description = "a shard or a span, as 8 or 8-11")
    String shards;

    @Option(names = "--host", required = true, description = "the host to hold them")
    String host;

    @Option(names = "--closed", description = "place them without accepting new nodes yet")
    boolean closed;

    @Option(names = "--if-version", paramLabel = "N", description = "change only map version N")
    Long ifVersion;

    @Override
    int run(AdminHttp server, PrintWriter out) {
      ObjectNode body = AdminHttp.JSON.createObjectNode().put("shards", shards).put("host", host)
          .put("acceptNewNodes", !closed);
      return changed(server.post("/v1/admin/shards", body, ifVersion), json, out);
    }
  }

  @Command(name = "state", mixinStandardHelpOptions = true,
      description = "Set shards read-write, read-only (writes get 503) or offline (everything gets 503).")
  static final class State extends RemoteCommand {
    @Parameters(index = "0", paramLabel = "SHARDS", description = "a shard or a span, as 4 or 4-5")
    String shards;

    @Parameters(index = "1", paramLabel = "STATE", description = "read-write, read-only or offline")
    String state;

    @Option(names = "--if-version", paramLabel = "N", description = "change only map version N")
    Long ifVersion;

    @Override
    int run(AdminHttp server, PrintWriter out) {
      ObjectNode body = AdminHttp.JSON.createObjectNode().put("shards", shards).put("state", state);
      return changed(server.post("/v1/admin/shards/state", body, ifVersion), json, out);
    }
  }

  @Command(name = "move", mixinStandardHelpOptions = true,
      description = {"Move shards to another host while they serve: copy, catch-up, verify, cut-over, cleanup.",
          "Rerun the same move to resume it (after its server died, or after --stop-before);"
              + " --status shows the move under way, --cancel undoes it before its cut-over."})
  static final class Move extends RemoteCommand {
    @Parameters(arity = "0..1", paramLabel = "SHARDS", description = "a shard or a span on one host, as 4 or 4-5")
    String shards;

    @Option(names = "--to", paramLabel = "HOST", description = "the host to move them to")
    String to;

    @Option(names = "--stop-before", paramLabel = "PHASE",
        description = "stop before catch-up, verify or cut-over (replication keeps running); rerun to go on")
    String stopBefore;

    @Option(names = "--status", description = "show the move under way, if any")
    boolean status;

    @Option(names = "--cancel", description = "cancel the move under way (before its cut-over)")
    boolean cancel;

    @Override
    int run(AdminHttp server, PrintWriter out) {
      if (status || cancel) {
        JsonNode answer = status ? server.get("/v1/admin/shards/move").path("move")
            : server.post("/v1/admin/shards/move/cancel", null, null).path("cancelled");
        if (json) {
          printJson(out, answer);
        } else if (answer.isNull() || answer.isMissingNode()) {
          out.println("no shard move is under way");
        } else {
          out.printf("%s shards %s from %s to %s, %s%s%n", cancel ? "cancelled the move of" : "moving",
              answer.path("shards").asText(), answer.path("from").asText(), answer.path("to").asText(),
              cancel ? "undone" : "at " + answer.path("phase").asText(),
              answer.path("runner").isNull() ? (cancel ? "" : "; no server runs it now: rerun it to resume")
                  : (cancel ? "; its server is undoing it" : " on server " + answer.path("runner").asText()));
        }
        return 0;
      }
      if (shards == null || to == null) {
        throw new CommandFailure(2, "shards move needs SHARDS and --to HOST (or --status, --cancel)");
      }
      ObjectNode body = AdminHttp.JSON.createObjectNode().put("shards", shards).put("to", to);
      if (stopBefore != null) {
        body.put("stopBefore", stopBefore);
      }
      JsonNode last = MoveProgressBar.follow(server, body, out, json);
      if (last == null || !last.has("summary")) {
        throw new CommandFailure(1, "the move stopped: " + (last == null ? "no answer"
            : last.path("error").isObject() ? last.path("error").path("message").asText()
            : last.path("error").asText(last.toString())));
      }
      JsonNode report = last.get("summary");
      if (json) {
        printJson(out, report);
      } else if ("done".equals(report.path("reached").asText())) {
        out.printf("moved shards %s from %s to %s in %.1f s: %d rows copied, %d chunks verified equal, writes refused"
                + " for %d ms; the old copy is kept as %s%n", report.path("shards").asText(), report.path("from").asText(),
            report.path("to").asText(), report.path("millis").asLong() / 1000.0, report.path("rowsCopied").asLong(),
            report.path("chunksCompared").asLong(), report.path("writesRefusedMillis").asLong(),
            String.join(", ", AdminHttp.JSON.convertValue(report.path("retired"), String[].class)));
      } else {
        out.printf("shards %s stopped before %s, replicating from %s to %s; rerun the move to go on%n",
            report.path("shards").asText(), report.path("reached").asText(), report.path("from").asText(),
            report.path("to").asText());
      }
      return 0;
    }
  }

  @Command(name = "drop-retired", mixinStandardHelpOptions = true,
      description = "Drop the old copies moves kept on their source hosts, once older than the grace period.")
  static final class DropRetired extends RemoteCommand {
    @Option(names = "--grace-hours", paramLabel = "N", defaultValue = "24",
        description = "keep copies younger than this (default: ${DEFAULT-VALUE}); 0 drops every one")
    long graceHours;

    @Override
    int run(AdminHttp server, PrintWriter out) {
      JsonNode answer = server.post("/v1/admin/shards/retired/drop",
          AdminHttp.JSON.createObjectNode().put("graceHours", graceHours), null);
      if (json) {
        printJson(out, answer);
      } else if (answer.path("dropped").isEmpty()) {
        out.println("no retired copy is older than " + graceHours + " h");
      } else {
        answer.path("dropped").forEach(name -> out.println("dropped " + name.asText()));
      }
      return 0;
    }
  }

  /** After a change: the map as published. */
  static int changed(JsonNode map, boolean json, PrintWriter out) {
    if (json) {
      RemoteCommand.printJson(out, map);
    } else {
      print(map, out, " published");
    }
    return 0;
  }

  /** The ranges split into runs of one state and openness, so what differs shows. */
  static void print(JsonNode map, PrintWriter out, String headingSuffix) {
    Map<Integer, String> states = new HashMap<>();
    map.path("state").fields().forEachRemaining(entry -> states.put(Integer.parseInt(entry.getKey()), entry.getValue().asText()));
    Table table = new Table("SHARDS", "HOST", "STATE", "NEW NODES");
    for (JsonNode range : map.path("ranges")) {
      int runFrom = range.path("from").asInt();
      int to = range.path("to").asInt();
      for (int shard = runFrom; shard <= to; shard++) {
        boolean ends = shard == to || !states.getOrDefault(shard + 1, "read-write").equals(states.getOrDefault(shard, "read-write"))
            || isOpen(map, shard + 1) != isOpen(map, shard);
        if (ends) {
          table.row(runFrom == shard ? Integer.toString(shard) : runFrom + "-" + shard, range.path("host").asText(),
              states.getOrDefault(shard, "read-write"), isOpen(map, shard) ? "yes" : "no");
          runFrom = shard + 1;
        }
      }
    }
    out.printf("shard map version %d%s%n", map.path("version").asLong(), headingSuffix);
    table.print(out);
  }

  private static boolean isOpen(JsonNode map, int shard) {
    for (JsonNode span : map.path("open")) {
      if (shard >= span.get(0).asInt() && shard <= span.get(1).asInt()) {
        return true;
      }
    }
    return false;
  }
}
