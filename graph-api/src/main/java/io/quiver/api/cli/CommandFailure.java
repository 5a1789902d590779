package io.quiver.api.cli;

import io.quiver.api.http.ApiErrors;
import io.quiver.client.QuiverException;
import io.quiver.core.GraphException;
import io.quiver.core.GraphException.Code;

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

  /**
   * What a failure says to the person who typed the command. A refusal — from a server, or from
   * the fleet itself under {@code --config} — is its one sentence, the compatibility rule it names
   * before it and its HTTP status and code after it ({@code rule FIELD_TYPE_IMMUTABLE: … (409
   * incompatible_change)}); a refused admin token exits 2 as a usage error does, so scripts tell
   * "fix your call" from "the fleet failed". A call that got no answer is its sentence alone.
   */
  static CommandFailure of(Throwable failure) {
    if (failure instanceof CommandFailure known) {
      return known;
    }
    if (failure instanceof GraphException refused) {
      if (refused.getCause() != null && refused.code() != Code.INTERNAL) {
        return new CommandFailure(1, refused.getMessage());
      }
      ApiErrors.Answer answer = ApiErrors.answer(refused.code());
      Object rule = refused.details().get("rule");
      return refusal(answer.status(), answer.code(), (rule == null ? "" : "rule " + rule + ": ") + refused.getMessage());
    }
    if (failure instanceof QuiverException refused) {
      return refused.status() == 0 ? new CommandFailure(1, refused.getMessage())
          : refusal(refused.status(), refused.code(), refused.getMessage());
    }
    return new CommandFailure(1, failure.getMessage() != null ? failure.getMessage() : failure.getClass().getSimpleName());
  }

  private static CommandFailure refusal(int httpStatus, String code, String message) {
    if (httpStatus == 401 || httpStatus == 403) {
      return new CommandFailure(2, message + " (give --token or set QUIVER_TOKEN)");
    }
    return new CommandFailure(1, message + " (" + httpStatus + " " + code + ")");
  }
}
