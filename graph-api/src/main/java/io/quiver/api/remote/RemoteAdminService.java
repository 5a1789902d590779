package io.quiver.api.remote;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.http.AdminJson;
import io.quiver.api.http.ApiJson;
import io.quiver.api.http.StatusReport;
import io.quiver.core.DaemonThreads;
import io.quiver.core.GraphException;
import io.quiver.fleet.AdminService;
import io.quiver.fleet.FailoverReport;
import io.quiver.fleet.MoveProgress;
import io.quiver.fleet.MoveReport;
import io.quiver.fleet.ProvisionReport;
import io.quiver.fleet.ShardMoveStatus;
import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaChanges;
import io.quiver.schema.SchemaJson;
import io.quiver.store.GraphStore;
import io.quiver.store.RepairReport;
import io.quiver.store.UniqueRepairReport;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardMapJson;
import io.quiver.store.shard.ShardSpan;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.net.URI;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.function.Consumer;

/**
 * The {@link AdminService} of a running server, reached over its admin API: the same calls with
 * the same records and the same {@link GraphException} codes as the service inside the server, so
 * a tool is written once against {@code AdminService} and the compiler checks it — the command line
 * works through this class, and the admin contract suite runs every scenario against both.
 *
 * <p>As kubectl's typed clientsets and vtctldclient do for their servers: each call is one HTTP
 * request (a repair or a shard move one long NDJSON answer whose lines become the progress
 * callbacks); each answer is read back by {@link AdminJson} and the codecs the server wrote it
 * with; a refusal is rebuilt from its error body. The calls block on threads of this service's
 * own, never on an event loop, and complete on the caller's Vert.x context when it has one.
 * A call that got no answer (the server down, unreachable, too slow) is UNAVAILABLE with the I/O
 * failure as its cause.
 *
 * <p>What the API cannot say exactly is rounded the safe way: a drop's grace is whole hours,
 * rounded up (a copy is never dropped younger than asked).
 */
public final class RemoteAdminService implements AdminService {
  /** How long a call answered at once may take; a streamed call (repair, move) takes as long as its work. */
  public static final Duration CALL_TIMEOUT = Duration.ofSeconds(30);

  private final AdminHttp http;
  private final ExecutorService calls = DaemonThreads.cached("quiver-admin-remote");

  /** @param token the server's admin token; null or blank sends none (the calls that need it answer 401) */
  public RemoteAdminService(URI server, String token) {
    this.http = new AdminHttp(server, token, CALL_TIMEOUT);
  }

  /** What an operator looks at first: the server's view of the hosts, their outboxes and its caches. */
  public Future<StatusReport> status() {
    return call(() -> AdminJson.readStatus(http.call("GET", "/v1/admin/status", null, null)));
  }

  @Override
  public Future<Schema> defineNodeType(NodeType type, Set<SchemaChanges.Permit> permits) {
    return define("node", type.name(), SchemaJson.write(type), SchemaJson.NODE_TYPE_MEMBERS, permits, false);
  }

  @Override
  public Future<Schema> defineEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits) {
    return define("edge", type.name(), SchemaJson.write(type), SchemaJson.EDGE_TYPE_MEMBERS, permits, false);
  }

  @Override
  public Future<Schema> previewNodeType(NodeType type, Set<SchemaChanges.Permit> permits) {
    return define("node", type.name(), SchemaJson.write(type), SchemaJson.NODE_TYPE_MEMBERS, permits, true);
  }

  @Override
  public Future<Schema> previewEdgeType(EdgeType type, Set<SchemaChanges.Permit> permits) {
    return define("edge", type.name(), SchemaJson.write(type), SchemaJson.EDGE_TYPE_MEMBERS, permits, true);
  }

  /** {@code PUT /v1/schema/{kind}-types/{name}}, the permits and a dry run as its query; the body a definition's members. */
  private Future<Schema> define(String kind, String name, ObjectNode definition, Set<String> members,
      Set<SchemaChanges.Permit> permits, boolean dryRun) {
    definition.retain(members);
    List<String> query = new ArrayList<>();
    if (permits.contains(SchemaChanges.Permit.CHANGE_DEFAULTS)) {
      query.add("changeDefaults=true");
    }
    if (permits.contains(SchemaChanges.Permit.BUILD_INDEXES_LATER)) {
      query.add("buildLater=true");
    }
    if (dryRun) {
      query.add("dryRun=true");
    }
    String path = "/v1/schema/" + kind + "-types/" + segment(name) + (query.isEmpty() ? "" : "?" + String.join("&", query));
    return call(() -> SchemaJson.read(http.call("PUT", path, definition, null)));
  }

  @Override
  public Future<Schema> applySchema(Schema document) {
    return call(() -> SchemaJson.read(http.call("POST", "/v1/admin/schema/apply", SchemaJson.write(document), null)));
  }

  @Override
  public Future<ProvisionReport> provision() {
    return call(() -> AdminJson.read(http.call("POST", "/v1/admin/provision", null, null), ProvisionReport.class));
  }

  @Override
  public Future<RepairReport> repair(String edgeType, Consumer<String> progress) {
    return call(() -> AdminJson.read(http.stream("/v1/admin/repair/" + segment(edgeType), null,
        line -> progress.accept(line.path("progress").asText())), RepairReport.class));
  }

  @Override
  public Future<UniqueRepairReport> repairUnique(String type, String field, Consumer<String> progress) {
    return call(() -> AdminJson.read(http.stream("/v1/admin/unique/" + segment(type) + "/" + segment(field) + "/repair",
        null, line -> progress.accept(line.path("progress").asText())), UniqueRepairReport.class));
  }

  @Override
  public Future<Long> retryParked(String host) {
    ObjectNode body = ApiJson.object();
    if (host != null) {
      body.put("host", host);
    }
    return call(() -> http.call("POST", "/v1/admin/outbox/retry-parked", body, null).path("retried").asLong());
  }

  @Override
  public Future<Schema> schema() {
    return call(() -> SchemaJson.read(http.call("GET", "/v1/schema", null, null)));
  }

  @Override
  public Future<ShardMap> shardMap() {
    return call(() -> ShardMapJson.read(http.call("GET", "/v1/admin/shard-map", null, null)));
  }

  @Override
  public Future<ShardMap> changeShardMap(ShardMapChange change, long expectedVersion) {
    Optional<GraphException> refused = AdminService.refusal(change);
    if (refused.isPresent()) {
      return Future.failedFuture(refused.get());
    }
    Long ifVersion = expectedVersion == GraphStore.ANY_VERSION ? null : expectedVersion;
    ObjectNode body = ApiJson.object();
    String path;
    if (change instanceof ShardMapChange.AddHost add) {
      path = "/v1/admin/hosts";
      body.put("name", add.host().name()).put("primary", add.host().primary());
      add.host().replicas().forEach(body.putArray("replicas")::add);
    } else if (change instanceof ShardMapChange.OpenShards open) {
      path = "/v1/admin/shards";
      body.put("shards", open.shards().toString()).put("host", open.host()).put("acceptNewNodes", open.acceptNewNodes());
    } else if (change instanceof ShardMapChange.SetState set) {
      path = "/v1/admin/shards/state";
      body.put("shards", set.shards().toString()).put("state", set.state().jsonName());
    } else {
      return Future.failedFuture(GraphException.invalid("no admin call makes the change " + change.describe()));
    }
    String to = path;
    return call(() -> ShardMapJson.read(http.call("POST", to, body, ifVersion)));
  }

  @Override
  public Future<MoveReport> moveShards(ShardSpan shards, String to, String stopBefore, Consumer<MoveProgress> progress) {
    ObjectNode body = ApiJson.object().put("shards", shards.toString()).put("to", to);
    if (stopBefore != null) {
      body.put("stopBefore", stopBefore);
    }
    return call(() -> AdminJson.read(http.stream("/v1/admin/shards/move", body, line -> {
      MoveProgress step = AdminJson.readProgress(line);
      if (step != null) {
        progress.accept(step);
      }
    }), MoveReport.class));
  }

  @Override
  public Future<ShardMap> addReplica(String host, String address, Consumer<String> progress) {
    ObjectNode body = ApiJson.object().put("address", address);
    return call(() -> ShardMapJson.read(http.stream("/v1/admin/hosts/" + segment(host) + "/replicas", body,
        line -> progress.accept(line.path("progress").asText()))));
  }

  @Override
  public Future<ShardMap> removeReplica(String host, String address) {
    return call(() -> ShardMapJson.read(http.call("DELETE", "/v1/admin/hosts/" + segment(host) + "/replicas/"
        + segment(address), null, null)));
  }

  @Override
  public Future<FailoverReport> switchover(String host, String to) {
    ObjectNode body = ApiJson.object();
    if (to != null) {
      body.put("to", to);
    }
    return call(() -> AdminJson.read(http.call("POST", "/v1/admin/hosts/" + segment(host) + "/switchover", body, null),
        FailoverReport.class));
  }

  @Override
  public Future<List<FailoverReport>> failovers() {
    return call(() -> {
      List<FailoverReport> reports = new java.util.ArrayList<>();
      for (JsonNode report : http.call("GET", "/v1/admin/failovers", null, null).path("failovers")) {
        reports.add(AdminJson.read(report, FailoverReport.class));
      }
      return reports;
    });
  }

  @Override
  public Future<Optional<ShardMoveStatus>> shardMove() {
    return call(() -> {
      JsonNode move = http.call("GET", "/v1/admin/shards/move", null, null).path("move");
      return move.isObject() ? Optional.of(AdminJson.read(move, ShardMoveStatus.class)) : Optional.empty();
    });
  }

  @Override
  public Future<ShardMoveStatus> cancelShardMove() {
    return call(() -> AdminJson.read(http.call("POST", "/v1/admin/shards/move/cancel", null, null).path("cancelled"),
        ShardMoveStatus.class));
  }

  @Override
  public Future<List<String>> dropRetiredShards(Duration grace) {
    long hours = grace.toHours() + (grace.equals(Duration.ofHours(grace.toHours())) ? 0 : 1);
    return call(() -> {
      List<String> dropped = new ArrayList<>();
      http.call("POST", "/v1/admin/shards/retired/drop", ApiJson.object().put("graceHours", hours), null).path("dropped")
          .forEach(name -> dropped.add(name.asText()));
      return List.copyOf(dropped);
    });
  }

  /** Runs a blocking call on this service's threads; completes on the caller's context, if it has one. */
  private <T> Future<T> call(Callable<T> work) {
    Context caller = Vertx.currentContext();
    Promise<T> promise = Promise.promise();
    calls.execute(() -> {
      T value;
      try {
        value = work.call();
      } catch (Throwable failure) {
        complete(caller, () -> promise.fail(failure));
        return;
      }
      complete(caller, () -> promise.complete(value));
    });
    return promise.future();
  }

  private static void complete(Context caller, Runnable completion) {
    if (caller == null) {
      completion.run();
    } else {
      caller.runOnContext(nothing -> completion.run());
    }
  }

  private static String segment(String name) {
    return URLEncoder.encode(name, StandardCharsets.UTF_8);
  }

  /** Stops this service's threads; a call under way is left to end with the process. */
  @Override
  public void close() {
    calls.shutdown();
  }
}
