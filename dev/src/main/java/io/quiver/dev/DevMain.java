package io.quiver.dev;

import io.quiver.api.cli.Main;
import io.quiver.api.server.QuiverServer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * {@code ./quiver}: {@code quiver dev [--port N] [--data DIR]} starts the embedded stack and a
 * server over it; every other command is the server's own command line ({@link Main}).
 */
public final class DevMain {
  private static final String USAGE = "usage: quiver dev [--port N] [--data DIR]\n";

  private DevMain() {}

  public static void main(String[] args) {
    if (args.length == 0 || !args[0].equals("dev")) {
      if (args.length > 0 && List.of("help", "--help", "-h").contains(args[0])) {
        System.out.print(USAGE);
      }
      Main.main(args);
      return;
    }
    Main.runOrExit(() -> dev(new ArrayList<>(Arrays.asList(args).subList(1, args.length))), USAGE);
  }

  private static void dev(List<String> options) throws Exception {
    int port = Integer.parseInt(Main.option(options, "--port", "8080"));
    Path data = Path.of(Main.option(options, "--data", "var"));
    Main.requireNoMore(options);
    DevStack stack = DevStack.start(data);
    QuiverServer server;
    try {
      server = QuiverServer.start(stack.config(port), stack.schema());
    } catch (Exception e) {
      stack.close();
      throw e;
    }
    Path tools = stack.writeToolsConfig(server.port());
    System.out.printf("%nQuiver is serving on http://localhost:%d  (data in %s; Ctrl-C stops)%n"
            + "admin token for this run: %s%n"
            + "command-line tools against this run: ./quiver repair --config %s --edge-type board_has_pins%n%n",
        server.port(), data.toAbsolutePath(), stack.adminToken(), tools);
    Main.awaitShutdown(() -> {
      server.close();
      stack.close();
    });
  }
}
