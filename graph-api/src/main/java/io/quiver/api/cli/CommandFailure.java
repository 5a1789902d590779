package io.quiver.api.cli;

/**
 * A command that ran and failed in a way a person can act on: one line for standard error and the
 * exit status (1 for a failure, 2 for credentials the server refused, 3 for work that finished but
 * found what needs a person: refused import lines, values held twice). No stack trace.
 */
public final class CommandFailure extends RuntimeException {
  private final int status;

  public CommandFailure(int status, String message) {
    super(message, null, false, false);
    this.status = status;
  }

  public int status() {
    return status;
  }
}
