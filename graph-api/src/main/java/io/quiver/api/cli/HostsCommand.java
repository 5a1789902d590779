package io.quiver.api.cli;

import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMapChange;
import java.io.PrintWriter;
import java.util.ArrayList;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/** {@code quiver hosts list | add}: the MySQL hosts of the shard map. */
@Command(name = "hosts", mixinStandardHelpOptions = true, description = "The hosts of the shard map: list them, add one.",
    subcommands = {HostsCommand.List.class, HostsCommand.Add.class})
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

    @Option(names = "--replica", paramLabel = "HOST:PORT", description = "a replica, listed for failover (repeatable)")
    java.util.List<String> replicas = new ArrayList<>();

    @Option(names = "--if-version", paramLabel = "N", description = "change only map version N")
    Long ifVersion;

    @Override
    int run(PrintWriter out) {
      return ShardsCommand.change(this, new ShardMapChange.AddHost(new Host(name, primary, replicas)), ifVersion, out);
    }
  }
}
