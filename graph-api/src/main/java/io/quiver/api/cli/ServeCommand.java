package io.quiver.api.cli;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.server.QuiverServer;
import io.quiver.schema.SchemaJson;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code quiver serve --config FILE [--port N]}: a server over real ZooKeeper and MySQL hosts, until stopped. */
@Command(name = "serve", mixinStandardHelpOptions = true,
    description = "Serve the HTTP API over the fleet a configuration file names, until stopped.")
final class ServeCommand implements Callable<Integer> {
  @Option(names = "--config", required = true, paramLabel = "FILE", description = "the configuration file")
  Path config;

  @Option(names = "--port", paramLabel = "N", description = "serve on this port instead of the file's")
  Integer port;

  @Override
  public Integer call() throws Exception {
    QuiverConfig settings = QuiverConfig.load(config);
    if (port != null) {
      settings = settings.withPort(port);
    }
    QuiverServer server = QuiverServer.start(settings,
        settings.schemaFile() == null ? null : SchemaJson.parse(Files.readString(settings.schemaFile())));
    Main.awaitShutdown(server::close);
    return 0;
  }
}
