package io.quiver.benchmarks.workload;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.schema.Schema;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.http.HttpServerRequest;

/**
 * {@code jdbc-http}: what a team would deploy without Quiver — a thin Vert.x HTTP service, one
 * server per event loop like Quiver's, answering the same paths with hand-written SQL over JDBC
 * on a worker pool ({@link JdbcTarget} with both directions and rendering on): JSON answers, every
 * edge written in both directions, counts kept; no validation, no cache, no outbox. With a Redis
 * port it is {@code lookaside}: the same service with a look-aside cache in front of its SQL
 * ({@link LookasideCache}). The generator calls either exactly as it calls Quiver ({@link HttpTarget}).
 */
final class JdbcHttpServer implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private final Vertx server = Vertx.vertx();
  private final JdbcTarget sql;
  private final LookasideCache cache;

  /** @param redisPort the look-aside cache's Redis; null for none ({@code jdbc-http}) */
  JdbcHttpServer(int port, ShardMap map, Schema schema, int connections, Integer redisPort) {
    // The generator's HTTP client notes the edges and nodes it learns from the answers.
    this.sql = new JdbcTarget(map, schema, null, connections, true);
    this.cache = redisPort == null ? null : new LookasideCache(server, sql, redisPort,
        Math.max(8, Math.min(32, connections)));
    int cores = Runtime.getRuntime().availableProcessors();
    server.deployVerticle(() -> new VerticleBase() {
      @Override
      public Future<?> start() {
        return server.createHttpServer(new HttpServerOptions().setPort(port).setHost("127.0.0.1"))
            .requestHandler(request -> request.body().onSuccess(body -> serve(request, body)))
            .listen();
      }
    }, new DeploymentOptions().setInstances(cores)).await();
  }

  private void serve(HttpServerRequest request, Buffer body) {
    Call call;
    try {
      call = parse(request.method(), request.path(), body);
    } catch (RuntimeException e) {
      request.response().setStatusCode(400).end("{\"error\": \"bad request\"}");
      return;
    }
    (cache == null ? sql.answer(call) : cache.answer(call)).onComplete(done -> {
      JdbcTarget.Answer answer = done.succeeded() ? done.result() : new JdbcTarget.Answer(500, null);
      request.response().setStatusCode(answer.status()).putHeader("Content-Type", "application/json");
      if (answer.body() == null) {
        request.response().end();
      } else {
        request.response().end(Buffer.buffer(answer.body()));
      }
    });
  }

  /** The API path back to the operation (the paths {@link HttpTarget} sends). */
  private static Call parse(HttpMethod method, String path, Buffer body) {
    String[] parts = path.split("/");
    if (path.equals("/v1/edges:batchGet") && method == HttpMethod.POST) {
      JsonNode edges = read(body).get("edges");
      java.util.List<Long> sources = new java.util.ArrayList<>();
      edges.forEach(edge -> sources.add(edge.get("from").asLong()));
      return new Call(Operation.BATCH_READ, 0, edges.get(0).get("to").asLong(), 0, null, sources);
    }
    // "", "v1", "nodes", id [, "edges", "follows" [, to | "count"]]
    if (parts.length == 4 && parts[3].equals("user") && method == HttpMethod.POST) {
      return new Call(Operation.ADD_NODE, 0, 0, 0, text(body, "name"));
    }
    long id = Long.parseLong(parts[3]);
    if (parts.length == 4) {
      return switch (method.name()) {
        case "GET" -> new Call(Operation.GET_NODE, id, 0, 0, null);
        case "PATCH" -> new Call(Operation.UPDATE_NODE, id, 0, 0, text(body, "bio"));
        case "DELETE" -> new Call(Operation.DELETE_NODE, id, 0, 0, null);
        default -> throw new IllegalArgumentException(method.name());
      };
    }
    if (parts.length == 6) {
      return new Call(Operation.GET_EDGES, id, 0, 0, null);
    }
    if (parts[6].equals("count")) {
      return new Call(Operation.COUNT_EDGES, id, 0, 0, null);
    }
    long to = Long.parseLong(parts[6]);
    return switch (method.name()) {
      case "GET" -> new Call(Operation.GET_EDGE, id, to, 0, null);
      case "DELETE" -> new Call(Operation.REMOVE_EDGE, id, to, 0, null);
      case "PUT" -> {
        JsonNode json = read(body);
        yield json.has("sequence")
            ? new Call(Operation.UPDATE_EDGE, id, to, json.get("sequence").asLong(), json.path("data").path("note").asText())
            : new Call(Operation.ADD_EDGE, id, to, 0, null);
      }
      default -> throw new IllegalArgumentException(method.name());
    };
  }

  private static String text(Buffer body, String field) {
    return read(body).path("data").path(field).asText();
  }

  private static JsonNode read(Buffer body) {
    try {
      return body.length() == 0 ? MAPPER.createObjectNode() : MAPPER.readTree(body.getBytes());
    } catch (java.io.IOException e) {
      throw new IllegalArgumentException("not JSON", e);
    }
  }

  @Override
  public void close() {
    if (cache != null) {
      cache.close();
    }
    sql.close();
    server.close().await();
  }
}
