package io.quiver.http;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.error.Futures;
import io.quiver.error.GraphException;
import io.quiver.error.GraphException.Code;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaException;
import io.quiver.schema.SchemaJson;
import io.quiver.schema.SchemaRegistry;
import io.quiver.schema.SchemaWatcher;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.store.GraphStore;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;

/**
 * The schema admin calls, behind a bearer token: {@code Authorization: Bearer <token>}. No
 * token answers 401, a wrong one 403, and either changes nothing. A change is checked,
 * provisioned on every shard and published by {@link SchemaRegistry} on a worker thread; the
 * answer waits until this server serves the new version, so the caller reads its own change.
 */
public final class AdminRoutes {
  /** How long an admin call waits for its change to come back from ZooKeeper. */
  static final Duration OWN_CHANGE_TIMEOUT = Duration.ofSeconds(10);

  private final Vertx vertx;
  private final GraphStore store;
  private final SchemaRegistry registry;
  private final SchemaWatcher schemas;
  private final byte[] token;

  /** @param token the admin token; null disables the admin calls (every one answers 403) */
  public AdminRoutes(Vertx vertx, GraphStore store, SchemaRegistry registry, SchemaWatcher schemas, String token) {
    this.vertx = vertx;
    this.store = store;
    this.registry = registry;
    this.schemas = schemas;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  public void mount(Router router) {
    RequestObserver.operation(router.put("/v1/schema/node-types/:name"), "defineNodeType")
        .respond(ctx -> define(ctx, Kind.NODE));
    RequestObserver.operation(router.put("/v1/schema/edge-types/:name"), "defineEdgeType")
        .respond(ctx -> define(ctx, Kind.EDGE));
    RequestObserver.operation(router.post("/v1/admin/repair/:edgeType"), "repair").handler(this::repair);
  }

  /**
   * FriendFeed's Cleaner over one edge type and its inverse. The answer streams one JSON line per
   * shard scanned ({@code application/x-ndjson}) and ends with {@code {"summary": {...}}}; a
   * request refused before the scan starts gets an ordinary JSON error.
   */
  private void repair(RoutingContext ctx) {
    try {
      authorize(ctx);
    } catch (GraphException refused) {
      ctx.fail(refused);
      return;
    }
    HttpServerResponse response = ctx.response();
    store.repair(ctx.pathParam("edgeType"), line -> {
          synchronized (response) {
            if (!response.headWritten()) {
              response.setChunked(true).putHeader("Content-Type", "application/x-ndjson");
            }
            response.write(ApiJson.buffer(ApiJson.object().put("progress", line)).appendString("\n"));
          }
        })
        .onSuccess(report -> {
          ObjectNode summary = ApiJson.object();
          summary.set("summary", ApiJson.MAPPER.valueToTree(report));
          synchronized (response) {
            if (!response.headWritten()) {
              response.putHeader("Content-Type", ApiJson.CONTENT_TYPE);
            }
            response.end(ApiJson.buffer(summary).appendString("\n"));
          }
        })
        .onFailure(failure -> {
          if (response.headWritten()) {
            response.end(ApiJson.buffer(ApiJson.object().put("error", String.valueOf(failure.getMessage())))
                .appendString("\n"));
          } else {
            ctx.fail(failure);
          }
        });
  }

  private enum Kind { NODE, EDGE }

  private Future<Buffer> define(RoutingContext ctx, Kind kind) {
    return Futures.attempt(() -> {
          authorize(ctx);
          return readDefinition(ctx, kind);
        })
        .compose(definition -> vertx.executeBlocking(() -> publish(definition), false))
        .map(schema -> {
          ctx.response().putHeader("Content-Type", ApiJson.CONTENT_TYPE);
          return ApiJson.buffer(SchemaJson.write(schema));
        });
  }

  private void authorize(RoutingContext ctx) {
    if (token == null) {
      throw GraphException.of(Code.PERMISSION_DENIED, "the admin API is disabled: this server has no admin token");
    }
    String header = ctx.request().getHeader("Authorization");
    if (header == null || !header.startsWith("Bearer ")) {
      throw GraphException.of(Code.UNAUTHENTICATED, "admin calls need 'Authorization: Bearer <admin token>'");
    }
    byte[] given = header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(given, token)) {
      throw GraphException.of(Code.PERMISSION_DENIED, "the admin token is not valid");
    }
  }

  /** A parsed definition: exactly one of the two types is set. */
  private record Definition(NodeType nodeType, EdgeType edgeType) {}

  /** Parsed on the event loop, so a malformed definition is a 400 before any work is done. */
  private static Definition readDefinition(RoutingContext ctx, Kind kind) {
    JsonNode body = Requests.body(ctx, java.util.Set.of("id", "strict", "from", "to", "inverse", "fields"));
    String name = ctx.pathParam("name");
    try {
      return kind == Kind.NODE
          ? new Definition(SchemaJson.readNodeType(name, body), null)
          : new Definition(null, SchemaJson.readEdgeType(name, body));
    } catch (SchemaException e) {
      throw GraphException.invalid(e.getMessage());
    }
  }

  /** Runs on a worker thread: ZooKeeper and JDBC block. */
  private Schema publish(Definition definition) throws Exception {
    Schema published;
    try {
      published = definition.nodeType() != null
          ? registry.defineNodeType(definition.nodeType())
          : registry.defineEdgeType(definition.edgeType());
    } catch (SchemaException refused) {
      throw GraphException.of(Code.INCOMPATIBLE_CHANGE, refused.getMessage());
    } catch (java.sql.SQLException provisioning) {
      throw GraphException.of(Code.UNAVAILABLE, "could not create the type's tables on every shard: "
          + provisioning.getMessage());
    }
    return schemas.awaitVersion(published.version(), OWN_CHANGE_TIMEOUT);
  }
}
