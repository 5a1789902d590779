package io.quiver.api.cli;

import java.net.URI;
import picocli.CommandLine.Option;

/**
 * Where a command that talks to a running server finds it, and the admin token it shows
 * (mixed into every such command, as vtctldclient's {@code --server}).
 */
final class RemoteOptions {
  @Option(names = "--server", paramLabel = "URL", defaultValue = "${QUIVER_SERVER:-http://localhost:8080}",
      description = "the server (default ${DEFAULT-VALUE}; or QUIVER_SERVER)")
  URI server;

  @Option(names = "--token", paramLabel = "TOKEN", defaultValue = "${QUIVER_TOKEN}",
      description = "the admin token (or QUIVER_TOKEN; ./quiver dev prints its own)")
  String token;

  /** A client for this server; the caller closes it. */
  AdminHttp connect() {
    return new AdminHttp(server, token);
  }
}
