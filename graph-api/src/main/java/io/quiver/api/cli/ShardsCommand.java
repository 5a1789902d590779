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
 * {@code quiver shards list | open | state}: the shard map as ranges per host with their states,
 * and the changes an operator makes to it. Each change is compare-and-set on the map's version;
 * {@code --if-version N} makes it only against the map you looked at.
 */
@Command(name = "shards", mixinStandardHelpOptions = true, description = "The shard map: list it, open shards, set states.",
    subcommands = {ShardsCommand.List.class, ShardsCommand.Open.class, ShardsCommand.State.class})
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
