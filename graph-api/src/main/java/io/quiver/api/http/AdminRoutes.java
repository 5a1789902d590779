package io.quiver.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.Futures;
import io.quiver.core.GraphException.Code;
import io.quiver.core.GraphException;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.MoveReport;
import io.quiver.fleet.ShardMoveStatus;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.schema.SchemaJson;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardMapJson;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.shard.ShardState;
import io.vertx.core.Future;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import io.vertx.ext.web.handler.BodyHandler;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * The admin calls, behind a bearer token: {@code Authorization: Bearer <token>}. No token
 * answers 401, a wrong one 403, and either changes nothing. Each call parses its request on the
 * event loop (a malformed one is a 400 before any work) and hands the work to the
 * {@link AdminService} — the same service the command line's {@code --config} tools use, and the
 * one the command line and the console reach through these routes — which checks, provisions and
 * publishes a schema or shard-map change, and answers once this server serves it.
 *
 * <p>The calls: define a node or edge type ({@code ?dryRun=true}: what it would publish, or the
 * rule that refuses it); apply a schema document (the types it adds); provision what the map and
 * the schema need; repair an edge type or a unique index (NDJSON progress); read the shard map and
 * the {@link ServerStatus}; add a host, open shards, set shards' state ({@code If-Match}: only
 * against that map version); move shards; retry parked outbox entries. Every document is written
 * by {@link AdminJson} (or the schema's and the map's codecs), which the remote admin service
 * reads them back with.
 */
public final class AdminRoutes {
  /**
   * {@code ?changeDefaults=true} confirms that a change of defaults is meant; {@code ?dryRun=true}
   * answers what the definition would publish (or its refusal) and changes nothing;
   * {@code ?buildLater=true} leaves a unique index on existing nodes building, for the unique
   * repair to build with progress.
   */
  private static final Set<String> DEFINE_PARAMETERS = Set.of("changeDefaults", "dryRun", "buildLater");

  private final AdminService admin;
  private final ServerStatus status;
  private final byte[] token;

  /** @param token the admin token; null disables the admin calls (every one answers 403) */
  public AdminRoutes(AdminService admin, ServerStatus status, String token) {
    this.admin = admin;
    this.status = status;
    this.token = token == null ? null : token.getBytes(StandardCharsets.UTF_8);
  }

  /**
   * The calls that stream their progress for as long as their work takes — a repair, a shard move
   * — mounted before the request timeout, which would cut them off: each reads its small body
   * itself.
   */
  public void mountStreams(Router router) {
    RequestObserver.operation(router.post("/v1/admin/repair/:edgeType"), "repair")
        .handler(QueryParams.allowing(Set.of()))
        .handler(ctx -> streamScan(ctx, progress -> admin.repair(ctx.pathParam("edgeType"), lines(progress))
            .map(AdminJson::write)));
    RequestObserver.operation(router.post("/v1/admin/unique/:type/:field/repair"), "repairUnique")
        .handler(QueryParams.allowing(Set.of()))
        .handler(ctx -> streamScan(ctx, progress -> admin.repairUnique(ctx.pathParam("type"), ctx.pathParam("field"),
            lines(progress)).map(AdminJson::write)));
    router.post("/v1/admin/shards/move").handler(BodyHandler.create(false).setBodyLimit(STREAM_BODY_LIMIT));
    RequestObserver.operation(router.post("/v1/admin/shards/move"), "moveShards")
        .handler(QueryParams.allowing(Set.of())).handler(ctx -> streamScan(ctx, progress -> moveShards(ctx, progress)));
    router.post("/v1/admin/hosts/:host/replicas").handler(BodyHandler.create(false).setBodyLimit(STREAM_BODY_LIMIT));
    RequestObserver.operation(router.post("/v1/admin/hosts/:host/replicas"), "addReplica")
        .handler(QueryParams.allowing(Set.of())).handler(ctx -> streamScan(ctx, progress -> admin.addReplica(
            ctx.pathParam("host"), Requests.textMember(Requests.body(ctx, Set.of("address")), "address"),
            lines(progress)).map(ShardMapJson::write)));
  }

  /** The largest body a streamed call reads ({@code {"shards", "to", "stopBefore"}} and no more). */
  private static final long STREAM_BODY_LIMIT = 4096;

  /** The calls answered at once, behind the request timeout; {@link #mountStreams} first. */
  public void mount(Router router) {
    RequestObserver.operation(router.put("/v1/schema/node-types/:name"), "defineNodeType")
        .handler(QueryParams.allowing(DEFINE_PARAMETERS)).respond(ctx -> answer(ctx, () -> define(ctx, Kind.NODE)));
    RequestObserver.operation(router.put("/v1/schema/edge-types/:name"), "defineEdgeType")
        .handler(QueryParams.allowing(DEFINE_PARAMETERS)).respond(ctx -> answer(ctx, () -> define(ctx, Kind.EDGE)));
    RequestObserver.operation(router.get("/v1/admin/shard-map"), "getShardMap")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> admin.shardMap().map(ShardMapJson::write)));
    RequestObserver.operation(router.post("/v1/admin/outbox/retry-parked"), "retryParked")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> retryParked(ctx)));
    RequestObserver.operation(router.get("/v1/admin/status"), "getStatus")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> status.read().map(AdminJson::write)));
    RequestObserver.operation(router.post("/v1/admin/hosts"), "addHost")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> changeShardMap(ctx, ADD_HOST)));
    RequestObserver.operation(router.post("/v1/admin/shards"), "openShards")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> changeShardMap(ctx, OPEN_SHARDS)));
    RequestObserver.operation(router.post("/v1/admin/shards/state"), "setShardState")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> changeShardMap(ctx, SET_STATE)));
    RequestObserver.operation(router.get("/v1/admin/shards/move"), "getShardMove")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> admin.shardMove()
            .map(move -> ApiJson.object().set("move", moveStatus(move.orElse(null))))));
    RequestObserver.operation(router.post("/v1/admin/shards/move/cancel"), "cancelShardMove")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> admin.cancelShardMove()
            .map(move -> ApiJson.object().set("cancelled", moveStatus(move)))));
    RequestObserver.operation(router.post("/v1/admin/schema/apply"), "applySchema")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> admin.applySchema(
            SchemaJson.read(Requests.body(ctx, Set.of("version", "nodeTypes", "edgeTypes")))).map(SchemaJson::write)));
    RequestObserver.operation(router.post("/v1/admin/provision"), "provision")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> admin.provision().map(AdminJson::write)));
    RequestObserver.operation(router.delete("/v1/admin/hosts/:host/replicas/:address"), "removeReplica")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> admin.removeReplica(
            ctx.pathParam("host"), ctx.pathParam("address")).map(ShardMapJson::write)));
    RequestObserver.operation(router.post("/v1/admin/hosts/:host/switchover"), "switchover")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> {
          ObjectNode body = Requests.body(ctx, Set.of("to"));
          String to = body.hasNonNull("to") ? Requests.textMember(body, "to") : null;
          return admin.switchover(ctx.pathParam("host"), to).map(AdminJson::write);
        }));
    RequestObserver.operation(router.get("/v1/admin/failovers"), "getFailovers")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> admin.failovers().map(reports -> {
          ObjectNode document = ApiJson.object();
          var list = document.putArray("failovers");
          reports.forEach(report -> list.add(AdminJson.write(report)));
          return document;
        })));
    RequestObserver.operation(router.post("/v1/admin/shards/retired/drop"), "dropRetiredShards")
        .handler(QueryParams.allowing(Set.of())).respond(ctx -> answer(ctx, () -> dropRetired(ctx)));
  }

  /** How long a moved shard's old copy is kept unless the drop says otherwise. */
  static final long DEFAULT_RETIRED_GRACE_HOURS = 24;
  /** The longest grace a drop takes: 100 years, well inside what a timestamp can step back. */
  static final long MAX_RETIRED_GRACE_HOURS = 100L * 365 * 24;

  /** How a shard-map change is read from its body: the members it allows, and the change they make. */
  private record ChangeBody(Set<String> members, Function<ObjectNode, ShardMapChange> read) {}

  private static final ChangeBody ADD_HOST = new ChangeBody(Set.of("name", "primary", "replicas"), AdminRoutes::addHost);
  private static final ChangeBody OPEN_SHARDS =
      new ChangeBody(Set.of("shards", "host", "acceptNewNodes"), AdminRoutes::openShards);
  private static final ChangeBody SET_STATE = new ChangeBody(Set.of("shards", "state"), AdminRoutes::setState);

  /** {@code {"name": "h3", "primary": "10.0.0.5:3306", "replicas": []}} */
  private static ShardMapChange addHost(ObjectNode body) {
    List<String> replicas = new ArrayList<>();
    JsonNode given = body.get("replicas");
    if (given != null && !given.isNull()) {
      if (!given.isArray()) {
        throw GraphException.invalid("'replicas' must be an array of host:port strings");
      }
      given.forEach(replica -> replicas.add(replica.isTextual() ? replica.textValue() : replica.toString()));
    }
    return new ShardMapChange.AddHost(
        new Host(Requests.textMember(body, "name"), Requests.textMember(body, "primary"), replicas));
  }

  /** {@code {"shards": "8-11", "host": "h3", "acceptNewNodes": true}}; new nodes are accepted unless told not. */
  private static ShardMapChange openShards(ObjectNode body) {
    boolean acceptNewNodes = !body.has("acceptNewNodes") || Requests.booleanMember(body, "acceptNewNodes");
    return new ShardMapChange.OpenShards(ShardSpan.parse(Requests.textMember(body, "shards")),
        Requests.textMember(body, "host"), acceptNewNodes);
  }

  /** {@code {"shards": "4-5", "state": "read-only"}} */
  private static ShardMapChange setState(ObjectNode body) {
    return new ShardMapChange.SetState(ShardSpan.parse(Requests.textMember(body, "shards")),
        ShardState.fromJsonName(Requests.textMember(body, "state")));
  }

  /**
   * A change of the shard map, read from the body, made against the version {@code If-Match}
   * names if it names one; answers the map as published.
   */
  private Future<JsonNode> changeShardMap(RoutingContext ctx, ChangeBody body) {
    ShardMapChange change = body.read().apply(Requests.body(ctx, body.members()));
    return admin.changeShardMap(change, Requests.ifMatch(ctx)).map(ShardMapJson::write);
  }

  /**
   * An admin call answering one JSON document: authorized first, then {@code call} (which may
   * read its request and throw: a malformed one is a 400 before any work).
   */
  private Future<Buffer> answer(RoutingContext ctx, Supplier<Future<? extends JsonNode>> call) {
    return Futures.attempt(() -> {
          authorize(ctx);
          return ctx;
        })
        .compose(authorized -> call.get())
        .map(document -> {
          ctx.response().putHeader("Content-Type", ApiJson.CONTENT_TYPE);
          return ApiJson.buffer(document);
        });
  }

  /** Long work that reports progress as it goes, a JSON line at a time: a repair, a shard move. */
  private interface Scan {
    /** Runs, telling {@code progress} each line; answers the summary. */
    Future<? extends JsonNode> run(Consumer<ObjectNode> progress);
  }

  /** A repair's progress, a line of text each: {@code {"progress": "..."}}. */
  private static Consumer<String> lines(Consumer<ObjectNode> progress) {
    return line -> progress.accept(ApiJson.object().put("progress", line));
  }

  /**
   * {@code {"shards": "4-5", "to": "h3", "stopBefore": "cut-over"}} ({@code stopBefore} optional):
   * the move under way resumed if it is this one. Each
   * progress line is {@code {"phase", "done", "total", "progress"}}; the last is the report.
   */
  private Future<JsonNode> moveShards(RoutingContext ctx, Consumer<ObjectNode> progress) {
    ObjectNode body = Requests.body(ctx, Set.of("shards", "to", "stopBefore"));
    ShardSpan shards = ShardSpan.parse(Requests.textMember(body, "shards"));
    String to = Requests.textMember(body, "to");
    String stopBefore = body.hasNonNull("stopBefore") ? Requests.textMember(body, "stopBefore") : null;
    return admin.moveShards(shards, to, stopBefore, step -> progress.accept(AdminJson.write(step)))
        .map(AdminJson::write);
  }

  /** {@code {"graceHours": 24}} (the default): retired copies older than that are dropped. */
  private Future<JsonNode> dropRetired(RoutingContext ctx) {
    ObjectNode body = Requests.body(ctx, Set.of("graceHours"));
    Long given = Requests.longMember(body, "graceHours");
    long hours = given == null ? DEFAULT_RETIRED_GRACE_HOURS : given;
    if (hours < 0 || hours > MAX_RETIRED_GRACE_HOURS) {
      throw GraphException.invalid("'graceHours' must be between 0 and " + MAX_RETIRED_GRACE_HOURS + " (100 years),"
          + " got " + hours);
    }
    return admin.dropRetiredShards(Duration.ofHours(hours)).map(dropped -> {
      ObjectNode answer = ApiJson.object();
      dropped.forEach(answer.putArray("dropped")::add);
      return answer;
    });
  }

  private static JsonNode moveStatus(ShardMoveStatus move) {
    return move == null ? com.fasterxml.jackson.databind.node.NullNode.getInstance() : AdminJson.write(move);
  }

  /**
   * FriendFeed's Cleaner — over one edge type and its inverse, or over a unique index. The answer
   * streams one JSON line per shard scanned ({@code application/x-ndjson}) and ends with {@code
   * {"summary": {...}}}; a request refused before the scan starts gets an ordinary JSON error.
   */
  private void streamScan(RoutingContext ctx, Scan scan) {
    try {
      authorize(ctx);
    } catch (GraphException refused) {
      ctx.fail(refused);
      return;
    }
    HttpServerResponse response = ctx.response();
    Future<? extends JsonNode> scanning;
    try {
      scanning = scan.run(line -> {
        synchronized (response) {
          if (!response.headWritten()) {
            response.setChunked(true).putHeader("Content-Type", "application/x-ndjson");
          }
          response.write(ApiJson.buffer(line).appendString("\n"));
        }
      });
    } catch (RuntimeException malformed) {
      scanning = Future.failedFuture(malformed);
    }
    scanning
        .onSuccess(report -> {
          ObjectNode summary = ApiJson.object();
          summary.set("summary", report);
          synchronized (response) {
            if (!response.headWritten()) {
              response.putHeader("Content-Type", ApiJson.CONTENT_TYPE);
            }
            response.end(ApiJson.buffer(summary).appendString("\n"));
          }
        })
        .onFailure(failure -> {
          if (response.headWritten()) {
            response.end(ApiJson.buffer(AdminJson.failedLine(failure)).appendString("\n"));
          } else {
            ctx.fail(failure);
          }
        });
  }

  private enum Kind { NODE, EDGE }

  private Future<JsonNode> define(RoutingContext ctx, Kind kind) {
    Definition definition = readDefinition(ctx, kind);
    return (Requests.flag(ctx, "dryRun") ? preview(definition) : publish(definition)).map(SchemaJson::write);
  }

  /** {@code {"host": "h1"}}, or no body for every host: parked outbox entries tried again now. */
  private Future<JsonNode> retryParked(RoutingContext ctx) {
    ObjectNode body = Requests.body(ctx, Set.of("host"));
    String host = body.hasNonNull("host") ? Requests.textMember(body, "host") : null;
    return admin.retryParked(host).map(retried -> ApiJson.object().put("retried", retried));
  }

  private void authorize(RoutingContext ctx) {
    if (token == null) {
      throw GraphException.of(Code.PERMISSION_DENIED, "the admin API is disabled: this server has no admin token");
    }
    String header = ctx.request().getHeader("Authorization");
    // The scheme is case-insensitive (RFC 7235 §2.1): "bearer" and "BEARER" are "Bearer".
    if (header == null || !header.regionMatches(true, 0, "Bearer ", 0, "Bearer ".length())) {
      throw GraphException.of(Code.UNAUTHENTICATED, "admin calls need 'Authorization: Bearer <admin token>'");
    }
    byte[] given = header.substring("Bearer ".length()).trim().getBytes(StandardCharsets.UTF_8);
    if (!MessageDigest.isEqual(given, token)) {
      throw GraphException.of(Code.PERMISSION_DENIED, "the admin token is not valid");
    }
  }

  /** A parsed definition: exactly one of the two types is set, and what its author permits. */
  private record Definition(NodeType nodeType, EdgeType edgeType, Set<SchemaChanges.Permit> permits) {}

  /** Parsed on the event loop, so a malformed definition is a 400 before any work is done. */
  private static Definition readDefinition(RoutingContext ctx, Kind kind) {
    Set<SchemaChanges.Permit> permits = java.util.EnumSet.noneOf(SchemaChanges.Permit.class);
    if (Requests.flag(ctx, "changeDefaults")) {
      permits.add(SchemaChanges.Permit.CHANGE_DEFAULTS);
    }
    if (Requests.flag(ctx, "buildLater")) {
      permits.add(SchemaChanges.Permit.BUILD_INDEXES_LATER);
    }
    String name = ctx.pathParam("name");
    return kind == Kind.NODE
        ? new Definition(SchemaJson.readNodeType(name, Requests.body(ctx, SchemaJson.NODE_TYPE_MEMBERS)), null, permits)
        : new Definition(null, SchemaJson.readEdgeType(name, Requests.body(ctx, SchemaJson.EDGE_TYPE_MEMBERS)), permits);
  }

  private Future<Schema> preview(Definition definition) {
    return definition.nodeType() != null
        ? admin.previewNodeType(definition.nodeType(), definition.permits())
        : admin.previewEdgeType(definition.edgeType(), definition.permits());
  }

  private Future<Schema> publish(Definition definition) {
    return definition.nodeType() != null
        ? admin.defineNodeType(definition.nodeType(), definition.permits())
        : admin.defineEdgeType(definition.edgeType(), definition.permits());
  }
}
