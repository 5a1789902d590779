package io.quiver.api.cli;

import com.fasterxml.jackson.databind.node.NullNode;
import io.quiver.api.http.AdminJson;
import io.quiver.core.GraphException;
import io.quiver.fleet.MoveReport;
import io.quiver.fleet.ShardMoveStatus;
import io.quiver.store.GraphStore;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardMapJson;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.shard.ShardState;
import java.io.PrintWriter;
import java.time.Duration;
import java.util.Optional;
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
    int run(PrintWriter out) {
      ShardMap map = remote.admin().shardMap().await();
      if (json) {
        printJson(out, ShardMapJson.write(map));
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
    int run(PrintWriter out) {
      return change(this, new ShardMapChange.OpenShards(ShardSpan.parse(shards), host, !closed), ifVersion, out);
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
    int run(PrintWriter out) {
      return change(this, new ShardMapChange.SetState(ShardSpan.parse(shards), ShardState.fromJsonName(state)),
          ifVersion, out);
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
    int run(PrintWriter out) {
      if (status || cancel) {
        Optional<ShardMoveStatus> move = status ? remote.admin().shardMove().await()
            : Optional.of(remote.admin().cancelShardMove().await());
        if (json) {
          printJson(out, move.map(AdminJson::write).orElse(NullNode.getInstance()));
        } else if (move.isEmpty()) {
          out.println("no shard move is under way");
        } else {
          ShardMoveStatus shown = move.get();
          out.printf("%s shards %s from %s to %s, %s%s%n", cancel ? "cancelled the move of" : "moving", shown.shards(),
              shown.from(), shown.to(), cancel ? "undone" : "at " + shown.phase(),
              shown.runner() == null ? (cancel ? "" : "; no server runs it now: rerun it to resume")
                  : (cancel ? "; its server is undoing it" : " on server " + shown.runner()));
        }
        return 0;
      }
      if (shards == null || to == null) {
        throw new CommandFailure(2, "shards move needs SHARDS and --to HOST (or --status, --cancel)");
      }
      MoveReport report;
      try {
        report = MoveProgressBar.follow(remote.admin(), ShardSpan.parse(shards), to, stopBefore, out, json);
      } catch (GraphException stopped) {
        throw new CommandFailure(CommandFailure.of(stopped).status(), "the move stopped: "
            + CommandFailure.of(stopped).getMessage());
      }
      if (json) {
        printJson(out, AdminJson.write(report));
      } else if ("done".equals(report.reached())) {
        out.printf("moved shards %s from %s to %s in %.1f s: %d rows copied, %d chunks verified equal, writes refused"
                + " for %d ms; the old copy is kept as %s%n", report.shards(), report.from(), report.to(),
            report.millis() / 1000.0, report.rowsCopied(), report.chunksCompared(), report.writesRefusedMillis(),
            String.join(", ", report.retired()));
      } else {
        out.printf("shards %s stopped before %s, replicating from %s to %s; rerun the move to go on%n",
            report.shards(), report.reached(), report.from(), report.to());
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
    int run(PrintWriter out) {
      java.util.List<String> dropped = remote.admin().dropRetiredShards(Duration.ofHours(graceHours)).await();
      if (json) {
        var document = io.quiver.api.http.ApiJson.object();
        dropped.forEach(document.putArray("dropped")::add);
        printJson(out, document);
      } else if (dropped.isEmpty()) {
        out.println("no retired copy is older than " + graceHours + " h");
      } else {
        dropped.forEach(name -> out.println("dropped " + name));
      }
      return 0;
    }
  }

  /** A change of the map, against version {@code ifVersion} (null: any); then the map as published. */
  static int change(RemoteCommand command, ShardMapChange change, Long ifVersion, PrintWriter out) {
    ShardMap map = command.remote.admin().changeShardMap(change, ifVersion == null ? GraphStore.ANY_VERSION : ifVersion)
        .await();
    if (command.json) {
      RemoteCommand.printJson(out, ShardMapJson.write(map));
    } else {
      print(map, out, " published");
    }
    return 0;
  }

  /** The ranges split into runs of one state and openness, so what differs shows. */
  static void print(ShardMap map, PrintWriter out, String headingSuffix) {
    Table table = new Table("SHARDS", "HOST", "STATE", "NEW NODES");
    for (ShardRange range : map.ranges()) {
      int runFrom = range.from();
      for (int shard = runFrom; shard <= range.to(); shard++) {
        boolean ends = shard == range.to() || map.stateOf(shard + 1) != map.stateOf(shard)
            || isOpen(map, shard + 1) != isOpen(map, shard);
        if (ends) {
          table.row(runFrom == shard ? Integer.toString(shard) : runFrom + "-" + shard, range.host(),
              map.stateOf(shard).jsonName(), isOpen(map, shard) ? "yes" : "no");
          runFrom = shard + 1;
        }
      }
    }
    out.printf("shard map version %d%s%n", map.version(), headingSuffix);
    table.print(out);
  }

  private static boolean isOpen(ShardMap map, int shard) {
    return map.open().stream().anyMatch(span -> shard >= span.from() && shard <= span.to());
  }
}
