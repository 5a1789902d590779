package io.quiver.api.cli;

import io.quiver.fleet.ProvisionReport;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code quiver provision --config FILE}: create every missing shard database and table. */
@Command(name = "provision", mixinStandardHelpOptions = true,
    description = "Create the shard databases and tables the map and the registry's types need (only what is missing).")
final class ProvisionCommand implements Callable<Integer> {
  @Option(names = "--config", required = true, paramLabel = "FILE", description = "the fleet's configuration file")
  Path config;

  @Spec
  CommandSpec spec;

  @Override
  public Integer call() throws Exception {
    ProvisionReport report = new LocalFleet(config).withAdmin(admin -> admin.provision().await());
    spec.commandLine().getOut().printf("%d shards: %d databases and %d tables created%n",
        report.shards(), report.databasesCreated(), report.tablesCreated());
    spec.commandLine().getOut().flush();
    return 0;
  }
}
