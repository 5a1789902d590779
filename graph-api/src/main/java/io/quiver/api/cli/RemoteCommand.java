package io.quiver.api.cli;

import com.fasterxml.jackson.databind.JsonNode;
import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/**
 * A command that talks to a running server: {@code --server}, {@code --token}, and {@code --json}
 * for scripts (the server's own document, pretty-printed) instead of the table for people. It
 * reaches the server through {@code remote.admin()} — an {@link io.quiver.fleet.AdminService},
 * so what it reads is typed and checked by the compiler — or {@code remote.client()} for graph
 * reads.
 */
abstract class RemoteCommand implements Callable<Integer> {
  @Mixin
  RemoteOptions remote;

  @Option(names = "--json", description = "print the server's JSON instead of a table")
  boolean json;

  @Spec
  CommandSpec spec;

  @Override
  public final Integer call() throws Exception {
    try (RemoteOptions server = remote) {
      return run(spec.commandLine().getOut());
    }
  }

  /** The command's work; answers its exit status. */
  abstract int run(PrintWriter out) throws Exception;

  static void printJson(PrintWriter out, JsonNode document) {
    out.println(document.toPrettyString());
    out.flush();
  }
}
