package io.quiver.api.cli;

import java.io.PrintWriter;
import java.io.StringWriter;

/** Runs a {@code quiver} command line in this process, as a person would type it; what it printed and its status. */
public final class Cli {
  private Cli() {}

  /** The outcome of one command line: exit status, standard output, standard error. */
  public record Run(int status, String out, String err) {}

  public static Run quiver(String... args) {
    StringWriter out = new StringWriter();
    StringWriter err = new StringWriter();
    int status = Main.execute(Main.commandLine(new PrintWriter(out, true), new PrintWriter(err, true)), args);
    return new Run(status, out.toString(), err.toString());
  }
}
