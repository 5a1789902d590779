package io.quiver.api.cli;

import io.quiver.api.http.AdminJson;
import io.quiver.api.http.StatusReport;
import java.io.PrintWriter;
import java.util.List;
import java.util.function.Function;
import picocli.CommandLine.Command;

/** {@code quiver status}: what an operator looks at first ({@code GET /v1/admin/status}). */
@Command(name = "status", mixinStandardHelpOptions = true,
    description = "Hosts up or down with their shards, pools and outboxes; the map's and schema's versions; caches.")
final class StatusCommand extends RemoteCommand {
  @Override
  int run(PrintWriter out) {
    StatusReport status = remote.admin().status().await();
    if (json) {
      printJson(out, AdminJson.write(status));
      return 0;
    }
    out.printf("shard map version %d, schema version %d, ZooKeeper %s%n%n", status.shardMapVersion(),
        status.schemaVersion(), status.zooKeeperUp() ? "up" : "down");
    hostTable(status.hosts()).print(out);
    out.println();
    outboxTable(status.hosts()).print(out);
    out.println();
    Table caches = new Table("CACHE", "HIT RATIO", "HITS", "MISSES", "ENTRIES", "WEIGHT MB");
    for (StatusReport.CacheStatus cache : status.caches()) {
      caches.row(cache.cache(), String.format("%.3f", cache.hitRatio()), cache.hits(), cache.misses(), cache.entries(),
          String.format("%.1f", cache.weightBytes() / 1e6));
    }
    if (status.caches().isEmpty()) {
      out.println("this server runs without a cache");
    } else {
      caches.print(out);
    }
    return 0;
  }

  /** The hosts part of the status: as JSON, or as the table {@code table} makes of it. */
  static int printHosts(RemoteCommand command, PrintWriter out, Function<List<StatusReport.HostStatus>, Table> table) {
    StatusReport status = command.remote.admin().status().await();
    if (command.json) {
      printJson(out, AdminJson.writeHosts(status.hosts()));
    } else {
      table.apply(status.hosts()).print(out);
    }
    return 0;
  }

  /** One row per host: whether it answers this server, its primary, shards and pool. */
  static Table hostTable(List<StatusReport.HostStatus> hosts) {
    Table table = new Table("HOST", "PRIMARY", "STATE", "SHARDS", "POOL", "REPLICAS");
    hosts.forEach(host -> table.row(host.name(), host.primary(), host.state(), host.shards(), host.poolConnections(),
        host.replicas().isEmpty() ? "-" : String.join(",", host.replicas().stream()
            .map(replica -> replica + lag(host.replicaLagMs().get(replica))).toList())));
    return table;
  }

  /** A replica's lag as the table shows it beside its address. */
  private static String lag(Long lagMs) {
    return lagMs == null ? "" : lagMs < 0 ? " (lag unknown)" : " (lag " + lagMs + " ms)";
  }

  /** One row per host: its outbox, where this server drains it ({@code -} where another server does). */
  static Table outboxTable(List<StatusReport.HostStatus> hosts) {
    Table table = new Table("HOST", "OUTBOX PENDING", "PARKED", "OLDEST MS");
    hosts.forEach(host -> {
      StatusReport.OutboxStatus outbox = host.outbox();
      boolean known = outbox != null && outbox.known();
      table.row(host.name(), known ? outbox.pending() : "-", known ? outbox.parked() : "-",
          known ? outbox.oldestPendingAgeMs() : "-");
    });
    return table;
  }
}
