package io.quiver.api.cli;

import java.io.PrintWriter;
import java.util.concurrent.Callable;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Spec;

/** A command that only groups others ({@code quiver shards}): called alone, it says which exist and exits 2. */
abstract class CommandGroup implements Callable<Integer> {
  @Spec
  CommandSpec spec;

  @Override
  public Integer call() {
    PrintWriter err = spec.commandLine().getErr();
    err.println("quiver " + spec.name() + ": which one? " + String.join(", ", spec.subcommands().keySet()));
    spec.commandLine().usage(err);
    err.flush();
    return 2;
  }
}
