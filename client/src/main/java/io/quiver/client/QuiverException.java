package io.quiver.client;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * A call Quiver refused or could not serve. Branch on {@link #code()}: {@code invalid_request},
 * {@code not_found}, {@code version_conflict}, {@code too_large}, {@code schema_violation},
 * {@code unavailable} (retry later), {@code unauthenticated}, {@code forbidden},
 * {@code incompatible_change}, {@code internal}. A failure to reach the server at all has code
 * {@code unavailable} and status 0.
 */
public final class QuiverException extends RuntimeException {
  private final int status;
  private final String code;
  private final JsonNode details;

  public QuiverException(int status, String code, String message, JsonNode details, Throwable cause) {
    super(message, cause);
    this.status = status;
    this.code = code;
    this.details = details;
  }

  public int status() {
    return status;
  }

  public String code() {
    return code;
  }

  /** The error's particulars, such as the offending field paths of a schema violation; may be empty. */
  public JsonNode details() {
    return details;
  }

  /** Whether retrying later may succeed. */
  public boolean retryable() {
    return "unavailable".equals(code);
  }

  @Override
  public String toString() {
    return "QuiverException{" + status + " " + code + ": " + getMessage() + "}";
  }
}
