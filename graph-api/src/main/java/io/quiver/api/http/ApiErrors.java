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

  private ApiErrors() {}

  /** The failure handler of every route. */
  public static void handle(RoutingContext ctx) {
    Throwable failure = ctx.failure();
    if (failure instanceof GraphException graph) {
      respond(ctx, graph);
    } else if (failure instanceof HttpException http) {
      respondToStatus(ctx, http.getStatusCode(), http.getPayload());
    } else if (failure == null) {
      respondToStatus(ctx, ctx.statusCode(), null);
    } else if (isMalformedHttp(failure)) {
      write(ctx, 400, "invalid_request", "the request body is not valid HTTP/1.1 (a malformed chunk)", Map.of());
    } else {
      log.error("{} {} failed", ctx.request().method(), ctx.request().path(), failure);
      write(ctx, 500, "internal", "the server failed to answer this request", Map.of());
    }
  }

  /** A body the HTTP codec could not decode, such as a chunk size that is not hex: the client's error. */
  private static boolean isMalformedHttp(Throwable failure) {
    StackTraceElement[] where = failure.getStackTrace();
    return where.length > 0 && where[0].getClassName().startsWith("io.netty.handler.codec.http.");
  }

  private static void respond(RoutingContext ctx, GraphException failure) {
    switch (failure.code()) {
      case INVALID_ARGUMENT -> write(ctx, 400, "invalid_request", failure.getMessage(), failure.details());
      case SCHEMA_VIOLATION -> write(ctx, 422, "schema_violation", failure.getMessage(), failure.details());
      case NOT_FOUND -> write(ctx, 404, "not_found", failure.getMessage(), failure.details());
      case VERSION_CONFLICT -> write(ctx, 409, "version_conflict", failure.getMessage(), failure.details());
      case INCOMPATIBLE_CHANGE -> write(ctx, 409, "incompatible_change", failure.getMessage(), failure.details());
      case UNAUTHENTICATED -> {
        ctx.response().putHeader("WWW-Authenticate", "Bearer");
        write(ctx, 401, "unauthenticated", failure.getMessage(), failure.details());
      }
      case PERMISSION_DENIED -> write(ctx, 403, "forbidden", failure.getMessage(), failure.details());
      case UNAVAILABLE, ABORTED -> {
        ctx.response().putHeader("Retry-After", RETRY_AFTER_SECONDS);
        write(ctx, 503, "unavailable", failure.getMessage(), failure.details());
      }
      case INTERNAL -> {
        log.error("{} {} failed", ctx.request().method(), ctx.request().path(), failure);
        write(ctx, 500, "internal", "the server failed to answer this request", Map.of());
      }
    }
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

  private static Buffer errorBody(String code, String message, Map<String, Object> details) {
    ObjectNode error = ApiJson.object();
    ObjectNode body = error.putObject("error");
    body.put("code", code);
    body.put("message", message);
    body.set("details", ApiJson.MAPPER.valueToTree(details));
    return ApiJson.buffer(error);
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
