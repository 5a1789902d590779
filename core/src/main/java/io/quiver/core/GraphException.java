package io.quiver.core;

import java.util.Map;
import java.util.Objects;

/**
 * Why a graph operation failed, as a code the caller can act on and one sentence for a person.
 *
 * <p>Expected failures (bad input, missing nodes, an unavailable host) carry no stack trace:
 * they are answers, not bugs, and filling in a stack trace on every one is measurable work on
 * the request path. {@link Code#INTERNAL} keeps its trace and its cause.
 */
public final class GraphException extends RuntimeException {

  public enum Code {
    /** The request is malformed or names something that cannot exist; do not retry. */
    INVALID_ARGUMENT,
    /** Data does not satisfy its type's fields; details name each offending field path. */
    SCHEMA_VIOLATION,
    /** No such node, edge or type. */
    NOT_FOUND,
    /** The caller's expected version is not the stored one. */
    VERSION_CONFLICT,
    /** A schema change breaks a compatibility rule; the message names the rule. */
    INCOMPATIBLE_CHANGE,
    /**
     * A write would give a second node a unique field's value, or an index cannot turn active
     * while values are held twice; details name the field (and the duplicates).
     */
    UNIQUE_VIOLATION,
    /** The caller gave no credentials for a call that needs them. */
    UNAUTHENTICATED,
    /** The caller's credentials do not allow the call. */
    PERMISSION_DENIED,
    /** The request, or one part of it (a bulk line), is over a size limit; the message names it. */
    TOO_LARGE,
    /**
     * What the request names is no longer kept (a change cursor older than the log's retention);
     * the message says how far back what is kept reaches. Do not retry as it is.
     */
    GONE,
    /** The shard's host is down or overloaded, or the shard is read-only or offline; retry later. */
    UNAVAILABLE,
    /** A transaction lost a deadlock or a lock wait and may be retried as it is. */
    ABORTED,
    /** A bug or an unexpected database answer. */
    INTERNAL
  }

  private final Code code;
  private final Map<String, Object> details;

  private GraphException(Code code, String message, Map<String, Object> details, Throwable cause) {
    super(message, cause, false, code == Code.INTERNAL);
    this.code = Objects.requireNonNull(code, "code");
    this.details = Map.copyOf(details);
  }

  public static GraphException of(Code code, String message) {
    return new GraphException(code, message, Map.of(), null);
  }

  public static GraphException of(Code code, String message, Map<String, Object> details) {
    return new GraphException(code, message, details, null);
  }

  public static GraphException of(Code code, String message, Throwable cause) {
    return new GraphException(code, message, Map.of(), cause);
  }

  public static GraphException invalid(String message) {
    return of(Code.INVALID_ARGUMENT, message);
  }

  public static GraphException notFound(String message) {
    return of(Code.NOT_FOUND, message);
  }

  public static GraphException unavailable(String message) {
    return of(Code.UNAVAILABLE, message);
  }

  public Code code() {
    return code;
  }

  /** Machine-readable particulars, such as the violated field paths; never null. */
  public Map<String, Object> details() {
    return details;
  }
}
