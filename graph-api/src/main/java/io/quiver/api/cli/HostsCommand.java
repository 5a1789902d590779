package io.quiver.api.cli;

import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import java.io.PrintWriter;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code quiver hosts list | add | add-replica | remove-replica}: the MySQL hosts of the shard map. */
@Command(name = "hosts", mixinStandardHelpOptions = true,
    description = "The hosts of the shard map: list them, add one, add or remove a host's replica.",
    subcommands = {HostsCommand.List.class, HostsCommand.Add.class, HostsCommand.AddReplica.class,
        HostsCommand.RemoveReplica.class, HostsCommand.Switchover.class, HostsCommand.Failovers.class})
final class HostsCommand extends CommandGroup {

  @Command(name = "list", mixinStandardHelpOptions = true,
      description = "Each host with whether it answers, its shards and its pool.")
  static final class List extends RemoteCommand {
    @Override
    int run(PrintWriter out) {
      return StatusCommand.printHosts(this, out, StatusCommand::hostTable);
    }
  }

  @Command(name = "add", mixinStandardHelpOptions = true,
      description = "Add a host holding no shards yet; it must answer with the servers' MySQL account.")
  static final class Add extends RemoteCommand {
    @Parameters(index = "0", paramLabel = "NAME", description = "its name in the map, as h3")
    String name;

    @Parameters(index = "1", paramLabel = "PRIMARY", description = "host:port of its primary")
    String primary;

    @Option(names = "--if-version", paramLabel = "N", description = "change only map version N")
    Long ifVersion;

    @Override
    int run(PrintWriter out) {
      return ShardsCommand.change(this, new ShardMapChange.AddHost(new Host(name, primary, java.util.List.of())),
          ifVersion, out);
    }
  }

  @Command(name = "add-replica", mixinStandardHelpOptions = true,
      description = "Make a MariaDB server a replica of a host: seeded from a snapshot of its primary (or resumed,"
          + " if it holds data), replicating, confirming every write before the primary acknowledges it; then listed.")
  static final class AddReplica extends RemoteCommand {
    @Parameters(index = "0", paramLabel = "HOST", description = "the host, as h1")
    String host;

    @Parameters(index = "1", paramLabel = "ADDRESS", description = "host:port of the replica's server")
    String address;

    @Override
    int run(PrintWriter out) {
      ShardMap map = remote.admin().addReplica(host, address, line -> {
        out.println(line);
        out.flush();
      }).await();
      out.println("host " + host + " at " + map.hosts().get(host).primary() + " has replicas "
          + map.hosts().get(host).replicas() + " (shard map version " + map.version() + ")");
      return 0;
    }
  }

  @Command(name = "remove-replica", mixinStandardHelpOptions = true,
      description = "Unlist a host's replica and stop its replication.")
  static final class RemoveReplica extends RemoteCommand {
    @Parameters(index = "0", paramLabel = "HOST", description = "the host, as h1")
    String host;

    @Parameters(index = "1", paramLabel = "ADDRESS", description = "host:port of the replica")
    String address;

    @Override
    int run(PrintWriter out) {
      ShardMap map = remote.admin().removeReplica(host, address).await();
      out.println("host " + host + " has replicas " + map.hosts().get(host).replicas() + " (shard map version "
          + map.version() + ")");
      return 0;
    }
  }

  @Command(name = "switchover", mixinStandardHelpOptions = true,
      description = "Make a host's replica its primary for maintenance, nothing lost, writes refused for well under a"
          + " second; the old primary becomes a replica of the new one.")
  static final class Switchover extends RemoteCommand {
    @Parameters(index = "0", paramLabel = "HOST", description = "the host, as h1")
    String host;

    @Option(names = "--to", paramLabel = "ADDRESS", description = "the replica to promote (default: the one that"
        + " received the most)")
    String to;

    @Override
    int run(PrintWriter out) {
      io.quiver.fleet.FailoverReport report = remote.admin().switchover(host, to).await();
      out.println("host " + report.host() + " switched over from " + report.from() + " to " + report.to()
          + "; writes were refused for " + report.writesRefusedMs() + " ms; replicas now " + report.repointed());
      return 0;
    }
  }

  @Command(name = "failovers", mixinStandardHelpOptions = true,
      description = "Every failover recorded: which host, from which primary to which replica, when, how long writes"
          + " were refused, and what became of the old primary (silent, rejoined as a replica, or diverged).")
  static final class Failovers extends RemoteCommand {
    @Override
    int run(PrintWriter out) {
      java.util.List<io.quiver.fleet.FailoverReport> reports = remote.admin().failovers().await();
      if (json) {
        com.fasterxml.jackson.databind.node.ArrayNode list = io.quiver.api.http.ApiJson.MAPPER.createArrayNode();
        reports.forEach(report -> list.add(io.quiver.api.http.AdminJson.write(report)));
        printJson(out, list);
        return 0;
      }
      Table table = new Table("AT", "HOST", "KIND", "FROM", "TO", "SILENT MS", "WRITES REFUSED MS", "REPOINTED",
          "OLD PRIMARY");
      reports.forEach(report -> table.row(report.at(), report.host(), report.planned() ? "switchover" : "failover",
          report.from(), report.to(), report.unreachableMs(),
          report.writesRefusedMs(), report.repointed().isEmpty() ? "-" : String.join(",", report.repointed()),
          report.oldPrimary()));
      if (reports.isEmpty()) {
        out.println("no failover recorded");
      } else {
        table.print(out);
      }
      return 0;
    }
  }
}
