package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.function.Function;
import picocli.CommandLine.Command;

/** {@code quiver status}: what an operator looks at first ({@code GET /v1/admin/status}). */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Hosts up or down with their shards, pools and outboxes; the map's and schema's versions; caches.")
final class StatusCommand extends RemoteCommand {
  @Override
  int run(AdminHttp server, PrintWriter out) {
    JsonNode status = server.get("/v1/admin/status");
    if (json) {
      printJson(out, status);
      return 0;
    }
    out.printf("shard map version %d, schema version %d, ZooKeeper %s%n%n", status.path("shardMapVersion").asLong(),
        status.path("schemaVersion").asLong(), status.path("zookeeper").asText());
    hostTable(status.path("hosts")).print(out);
    out.println();
    outboxTable(status.path("hosts")).print(out);
    out.println();
    Table caches = new Table("CACHE", "HIT RATIO", "HITS", "MISSES", "ENTRIES", "WEIGHT MB");
    for (JsonNode cache : status.path("caches")) {
      caches.row(cache.path("cache").asText(), String.format("%.3f", cache.path("hitRatio").asDouble()),
          cache.path("hits").asLong(), cache.path("misses").asLong(), cache.path("entries").asLong(),
          String.format("%.1f", cache.path("weightBytes").asLong() / 1e6));
    }
    if (status.path("caches").isEmpty()) {
      out.println("this server runs without a cache");
    } else {
      caches.print(out);
    }
    return 0;
  }

  /** The hosts part of the status: as JSON, or as the table {@code table} makes of it. */
  static int printHosts(AdminHttp server, PrintWriter out, boolean json, Function<JsonNode, Table> table) {
    JsonNode hosts = server.get("/v1/admin/status").path("hosts");
    if (json) {
      printJson(out, hosts);
    } else {
      table.apply(hosts).print(out);
    }
    return 0;
  }

  /** One row per host: whether it answers this server, its primary, shards and pool. */
  static Table hostTable(JsonNode hosts) {
    Table table = new Table("HOST", "PRIMARY", "STATE", "SHARDS", "POOL");
    hosts.fields().forEachRemaining(host -> table.row(host.getKey(), host.getValue().path("primary").asText(),
        host.getValue().path("state").asText(), host.getValue().path("shards").asInt(),
        host.getValue().path("poolConnections").asInt()));
    return table;
  }

  /** One row per host: its outbox, where this server drains it ({@code -} where another server does). */
  static Table outboxTable(JsonNode hosts) {
    Table table = new Table("HOST", "OUTBOX PENDING", "PARKED", "OLDEST MS");
    hosts.fields().forEachRemaining(host -> {
      JsonNode outbox = host.getValue().path("outbox");
      table.row(host.getKey(), outbox.isMissingNode() ? "-" : outbox.path("pending").asLong(),
          outbox.isMissingNode() ? "-" : outbox.path("parked").asLong(),
          outbox.isMissingNode() ? "-" : outbox.path("oldestPendingAgeMs").asLong());
    });
    return table;
  }
}
