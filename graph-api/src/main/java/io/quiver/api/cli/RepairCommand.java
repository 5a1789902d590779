package io.quiver.api.cli;

import io.quiver.api.http.AdminJson;
import io.quiver.fleet.AdminService;
import io.quiver.schema.UniqueIndex;
import io.quiver.store.RepairReport;
import io.quiver.store.UniqueRepairReport;
import io.vertx.core.Future;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.function.Consumer;
import java.util.function.Function;
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
 * active when none are). Written once against {@link AdminService}: through a running server's
 * admin API, or with {@code --config FILE} in this process, under the same progress bar and with
 * its fixes announced to the servers' caches either way. Exits 3 when values are held twice.
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
  int run(PrintWriter out) throws Exception {
    String edges = edgeType != null ? edgeType : edgeTypeOption;
    if ((edges == null) == (unique == null)) {
      throw new CommandFailure(2, "repair needs an EDGE_TYPE or --unique TYPE.FIELD (one of them)");
    }
    if (unique == null) {
      RepairReport report = config != null
          ? new LocalFleet(config).withAdmin(admin -> edges(admin, edges))
          : edges(remote.admin(), edges);
      if (json) {
        printJson(out, AdminJson.write(report));
      } else {
        summarize(report, out);
      }
      return 0;
    }
    String[] typeAndField = typeAndField(unique);
    UniqueRepairReport report = config != null
        ? new LocalFleet(config).withAdmin(admin -> unique(admin, typeAndField[0], typeAndField[1], "repair"))
        : unique(remote.admin(), typeAndField[0], typeAndField[1], "repair");
    if (json) {
      printJson(out, AdminJson.write(report));
    } else {
      summarize(report, out);
    }
    return report.duplicates().isEmpty() ? 0 : 3;
  }

  private static RepairReport edges(AdminService admin, String edgeType) {
    return underBar(admin, "repair", progress -> admin.repair(edgeType, progress));
  }

  /** A unique index's scan under a bar named {@code task} (the schema's build of an index runs it too). */
  static UniqueRepairReport unique(AdminService admin, String type, String field, String task) {
    return underBar(admin, task, progress -> admin.repairUnique(type, field, progress));
  }

  /** A scan's progress under a bar: a line per shard and pass steps it; the closing "done: …" line is the summary's. */
  private static <T> T underBar(AdminService admin, String task, Function<Consumer<String>, Future<T>> scan) {
    int shards = admin.shardMap().await().allShards().size();
    try (ProgressBar bar = new ProgressBarBuilder().setTaskName(task).setInitialMax(2L * shards)
        .setUnit(" shards", 1).setStyle(ProgressBarStyle.ASCII).showSpeed().build()) {
      T report = scan.apply(line -> {
        if (!line.startsWith("done")) {
          bar.step();
          bar.setExtraMessage(line.replaceAll(";.*", ""));
        }
      }).await();
      bar.stepTo(bar.getMax());
      return report;
    }
  }

  static void summarize(RepairReport report, PrintWriter out) {
    out.printf("repair of %s: %d rows scanned, %d missing inverses, %d differing pairs, %d orphaned inverses,"
            + " %d pairs in flight (left to their outbox entries), %d copies fixed%n",
        report.edgeType(), report.scanned(), report.missingInverse(), report.differing(), report.orphanedInverse(),
        report.inFlight(), report.fixed());
    out.flush();
  }

  static void summarize(UniqueRepairReport report, PrintWriter out) {
    out.printf("repair of %s.%s: %d nodes and %d claims scanned, %d claims restored, %d orphaned claims removed,"
            + " %d in flight (younger than the lease), %d values held twice; the index is %s%n",
        report.type(), report.field(), report.nodesScanned(), report.claimsScanned(), report.claimsRestored(),
        report.orphansRemoved(), report.inFlight(), report.duplicates().size(), report.active() ? "active" : "building");
    for (UniqueIndex.Duplicate duplicate : report.duplicates()) {
      out.printf("  %s is held by %s%n", duplicate.value(), String.join(", ", duplicate.nodes()));
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
}
