package io.quiver.api.cli;

import io.quiver.api.remote.RemoteAdminService;
import io.quiver.client.QuiverClient;
import java.net.URI;
import java.time.Duration;
import picocli.CommandLine.Option;

/**
 * Where a command that talks to a running server finds it, and the admin token it shows
 * (mixed into every such command, as vtctldclient's {@code --server}); the admin service and the
 * graph client over it, each made when first asked for and closed with the command.
 */
final class RemoteOptions implements AutoCloseable {
  @Option(names = "--server", paramLabel = "URL", defaultValue = "${QUIVER_SERVER:-http://localhost:8080}",
      description = "the server (default ${DEFAULT-VALUE}; or QUIVER_SERVER)")
  URI server;

  @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${QUIVER_TOKEN}",
      description = "the admin token (or QUIVER_TOKEN; ./quiver dev prints its own)")
  String token;

  private RemoteAdminService admin;
  private QuiverClient client;

  /** The server's admin API, typed: what the operators' commands are written against. */
  RemoteAdminService admin() {
    if (admin == null) {
      admin = new RemoteAdminService(server, token);
    }
    return admin;
  }

  /** The server's graph API, as a product team's code calls it. */
  QuiverClient client() {
    if (client == null) {
      client = QuiverClient.create(server, Duration.ofSeconds(10));
    }
    return client;
  }

  @Override
  public void close() {
    if (admin != null) {
      admin.close();
    }
    if (client != null) {
      client.close();
    }
  }
}
