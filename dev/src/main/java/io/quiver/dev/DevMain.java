package io.quiver.dev;

import io.quiver.api.cli.Main;
import io.quiver.api.server.QuiverServer;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code ./quiver}: the server's own command line ({@link Main}) with one more command,
 * {@code quiver dev [--port N] [--data DIR] [--hosts N] [--replicas N]}, which starts the embedded stack and a
 * server over it.
 */
public final class DevMain {
  private DevMain() {}

  public static void main(String[] args) {
    CommandLine line = Main.commandLine(new PrintWriter(System.out, true), new PrintWriter(System.err, true));
    line.addSubcommand("dev", new Dev());
    Main.exit(Main.execute(line, args));
  }

  @Command(name = "dev", mixinStandardHelpOptions = true,
      description = "Start Quiver with everything embedded: ZooKeeper, two MariaDB hosts, the example schema.")
  static final class Dev implements Callable<Integer> {
    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Option(names = "--port", defaultValue = "8080", description = "the HTTP port (default ${DEFAULT-VALUE})")
    int port;

    @Option(names = "--data", defaultValue = "var", paramLabel = "DIR",
        description = "where the data lives, surviving restarts (default ./${DEFAULT-VALUE})")
    Path data;

    @Option(names = "--hosts", defaultValue = "2", paramLabel = "N",
        description = "MariaDB hosts to start, h1 to hN (default ${DEFAULT-VALUE}); shards live on h1 and h2,"
            + " the others hold none until shards are moved there")
    int hosts;

    @Option(names = "--replicas", defaultValue = "0", paramLabel = "N",
        description = "replicas of each host (default ${DEFAULT-VALUE}): each seeded from its host, replicating by"
            + " GTID and confirming every write before it is acknowledged")
    int replicas;

    @Override
    public Integer call() throws Exception {
      if (hosts < DevStack.MIN_HOSTS || hosts > DevStack.MAX_HOSTS) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--hosts takes " + DevStack.MIN_HOSTS + " to " + DevStack.MAX_HOSTS + ", not " + hosts);
      }
      if (replicas < 0 || replicas > DevStack.MAX_REPLICAS) {
        throw new CommandLine.ParameterException(spec.commandLine(),
            "--replicas takes 0 to " + DevStack.MAX_REPLICAS + ", not " + replicas);
      }
      DevStack stack = DevStack.start(data, hosts, replicas, java.util.List.of());
      QuiverServer server;
      try {
        server = QuiverServer.start(stack.config(port), stack.schema());
      } catch (Exception e) {
        stack.close();
        throw e;
      }
      try {
        stack.attachReplicas(server.admin());
      } catch (RuntimeException e) {
        server.close();
        stack.close();
        throw e;
      }
      Path tools = stack.writeToolsConfig(server.port());
      System.out.printf("%nQuiver is serving on http://localhost:%d  (data in %s; Ctrl-C stops)%n"
              + "admin token for this run: %s   (export QUIVER_TOKEN=%s for ./quiver status, shards, hosts…)%n"
              + "command-line tools against this run: ./quiver repair --config %s --edge-type board_has_pins%n%n",
          server.port(), data.toAbsolutePath(), stack.adminToken(), stack.adminToken(), tools);
      Main.awaitShutdown(() -> {
        server.close();
        stack.close();
      });
      return 0;
    }
  }
}
