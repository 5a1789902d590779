package io.quiver.api.http;

import com.fasterxml.jackson.databind.node.ObjectNode;
import io.netty.handler.codec.http.TooLongHttpHeaderException;
import io.netty.handler.codec.http.TooLongHttpLineException;
import io.quiver.core.GraphException;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.HttpException;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one place where failures become HTTP answers. Every non-2xx answer has the body
 * {@code {"error": {"code", "message", "details"}}}; none carries a stack trace.
 */
public final class ApiErrors {
  private static final Logger log = LoggerFactory.getLogger(ApiErrors.class);
  /** Seconds a client should wait before retrying an UNAVAILABLE answer. */
  static final String RETRY_AFTER_SECONDS = "1";
  /** What a bug answers: never its internals. */
  private static final String INTERNAL_MESSAGE = "the server failed to answer this request";

  private ApiErrors() {}

  /**
   * The failure handler of every route. A body the HTTP codec could not decode never gets here:
   * {@link CodecRefusals} answers it in the connection's pipeline.
   */
  public static void handle(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure instanceof GraphException graph) {
      respond(ctx, graph);
    } else if (failure instanceof HttpException http) {
      respondToStatus(ctx, http.getStatusCode(), http.getPayload());
    } else if (failure == null) {
      respondToStatus(ctx, ctx.statusCode(), null);
    } else if (failure instanceof io.vertx.core.http.HttpClosedException) {
      // The client closed its connection before the answer: nobody to answer, and no server fault.
      log.debug("{} {}: the client closed its connection", ctx.request().method(), ctx.request().path());
    } else {
      log.error("{} {} failed", ctx.request().method(), ctx.request().path(), failure);
      write(ctx, 500, "internal", INTERNAL_MESSAGE, Map.of());
    }
  }

  /** How an error code is answered: the HTTP status and the code's name on the wire. */
  public record Answer(int status, String code) {}

  /** The one mapping of {@link GraphException.Code} to HTTP. */
  public static Answer answer(GraphException.Code code) {
    return switch (code) {
      case INVALID_ARGUMENT -> new Answer(400, "invalid_request");
      case SCHEMA_VIOLATION -> new Answer(422, "schema_violation");
      case NOT_FOUND -> new Answer(404, "not_found");
      case VERSION_CONFLICT -> new Answer(409, "version_conflict");
      case INCOMPATIBLE_CHANGE -> new Answer(409, "incompatible_change");
      case UNIQUE_VIOLATION -> new Answer(409, "unique_violation");
      case TOO_LARGE -> new Answer(413, "too_large");
      case GONE -> new Answer(410, "gone");
      case UNAUTHENTICATED -> new Answer(401, "unauthenticated");
      case PERMISSION_DENIED -> new Answer(403, "forbidden");
      case UNAVAILABLE, ABORTED -> new Answer(503, "unavailable");
      case INTERNAL -> new Answer(500, "internal");
    };
  }

  /**
   * The code an answer's wire name stands for, read back by a client of this API: the first code
   * {@link #answer} maps to it (so {@code unavailable} reads as UNAVAILABLE, not ABORTED); a name
   * no code maps to ({@code method_not_allowed}, say) is INVALID_ARGUMENT for a 4xx, INTERNAL else.
   */
  public static GraphException.Code code(String wireName, int status) {
    for (GraphException.Code code : GraphException.Code.values()) {
      if (answer(code).code().equals(wireName)) {
        return code;
      }
    }
    return status >= 400 && status < 500 ? GraphException.Code.INVALID_ARGUMENT : GraphException.Code.INTERNAL;
  }

  private static void respond(RoutingContext ctx, GraphException failure) {
    Answer answer = answer(failure.code());
    switch (failure.code()) {
      case UNAUTHENTICATED -> ctx.response().putHeader("WWW-Authenticate", "Bearer");
      case UNAVAILABLE, ABORTED -> ctx.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
      case INTERNAL -> {
        log.error("{} {} failed", ctx.request().method(), ctx.request().path(), failure);
        write(ctx, answer.status(), answer.code(), INTERNAL_MESSAGE, Map.of());
        return;
      }
      default -> { }
    }
    write(ctx, answer.status(), answer.code(), failure.getMessage(), failure.details());
  }

  /** The error body of a failure, as one JSON object ({@code {"code", "message", "details"}}), for streamed answers. */
  static ObjectNode errorObject(Throwable failure) {
    if (!(failure instanceof GraphException graph) || graph.code() == GraphException.Code.INTERNAL) {
      log.error("a streamed answer failed", failure);
      return error("internal", INTERNAL_MESSAGE, Map.of());
    }
    return error(answer(graph.code()).code(), graph.getMessage(), graph.details());
  }

  private static void respondToStatus(RoutingContext ctx, int status, String detail) {
    switch (status) {
      case 400 -> write(ctx, 400, "invalid_request", detail != null ? detail : "the request is malformed", Map.of());
      case 404 -> write(ctx, 404, "not_found", "no such resource: " + ctx.request().path(), Map.of());
      case 405 -> write(ctx, 405, "method_not_allowed",
          ctx.request().method() + " is not allowed on " + ctx.request().path(), Map.of());
      case 413 -> write(ctx, 413, "too_large", "the request body is over the limit", Map.of());
      case 503 -> {
        ctx.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
        write(ctx, 503, "unavailable", "the server is overloaded; retry later", Map.of());
      }
      default -> write(ctx, status >= 400 ? status : 500, status >= 400 && status < 500 ? "invalid_request" : "internal",
          "the request could not be served", Map.of());
    }
  }

  /**
   * Refuses a request before it is routed (the gate, or the HTTP codec itself): the error body,
   * and the connection closed after it, since the rest of what the client sends cannot be trusted.
   */
  static void refuse(HttpServerRequest request, int status, String code, String message) {
    HttpServerResponse response = request.response();
    if (response.headWritten()) {
      request.connection().close();
      return;
    }
    response.setStatusCode(status)
        .putHeader("Content-Type", ApiJson.CONTENT_TYPE)
        .putHeader("Connection", "close")
        .end(errorBody(code, message, Map.of()))
        .onComplete(sent -> request.connection().close());
  }

  /**
   * What the HTTP codec could not decode — a request line or headers over the limits, a malformed
   * header, a bad chunk size, an unknown version — answered with the error body too.
   */
  public static void invalidRequest(HttpServerRequest request) {
    Throwable cause = request.decoderResult().cause();
    if (cause instanceof TooLongHttpLineException) {
      refuse(request, 414, "too_large", "the request line is longer than this server accepts");
    } else if (cause instanceof TooLongHttpHeaderException) {
      refuse(request, 431, "too_large", "the request's headers are larger than this server accepts");
    } else {
      refuse(request, 400, "invalid_request", "the request is not valid HTTP/1.1");
    }
  }

  /** {@code {"code", "message", "details"}}: what every error says, in an answer's body or a streamed line. */
  private static ObjectNode error(String code, String message, Map<String, Object> details) {
    ObjectNode error = ApiJson.object();
    error.put("code", code);
    error.put("message", message);
    error.set("details", ApiJson.MAPPER.valueToTree(details));
    return error;
  }

  static Buffer errorBody(String code, String message, Map<String, Object> details) {
    ObjectNode body = ApiJson.object();
    body.set("error", error(code, message, details));
    return ApiJson.buffer(body);
  }

  private static void write(RoutingContext ctx, int status, String code, String message, Map<String, Object> details) {
    HttpServerResponse response = ctx.response();
    if (response.headWritten()) {
      response.reset();
      return;
    }
    response.setStatusCode(status).putHeader("Content-Type", ApiJson.CONTENT_TYPE).end(errorBody(code, message, details));
  }
}
