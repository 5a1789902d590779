package io.quiver.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.fleet.MoveProgress;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The admin API's documents, each written and read in this one place: the routes write them
 * ({@link AdminRoutes}) and the remote admin service reads them back into the same records, so the
 * two cannot drift (the admin contract suite runs every call through both). The shard map and the
 * schema have codecs of their own ({@code ShardMapJson}, {@code SchemaJson}); the reports are
 * records Jackson writes and reads by their components.
 */
public final class AdminJson {
  private AdminJson() {}

  /** A report record ({@code RepairReport}, {@code MoveReport}, {@code ShardMoveStatus}…) as its document. */
  public static JsonNode write(Record report) {
    return ApiJson.MAPPER.valueToTree(report);
  }

  /** A report read back from its document. */
  public static <T extends Record> T read(JsonNode document, Class<T> type) {
    try {
      return ApiJson.MAPPER.treeToValue(document, type);
    } catch (JsonProcessingException | IllegalArgumentException malformed) {
      throw GraphException.of(GraphException.Code.INTERNAL, "the server answered a " + type.getSimpleName()
          + " this client cannot read: " + malformed.getMessage(), malformed);
    }
  }

  /** A shard move's progress line: {@code {"phase", "done", "total", "progress"}}. */
  public static ObjectNode write(MoveProgress step) {
    return ApiJson.object().put("phase", step.phase()).put("done", step.done()).put("total", step.total())
        .put("progress", step.message());
  }

  /** A progress line read back; null for a line that is not a move's step. */
  public static MoveProgress readProgress(JsonNode line) {
    return line.hasNonNull("phase")
        ? new MoveProgress(line.get("phase").asText(), line.path("done").asLong(), line.path("total").asLong(),
            line.path("progress").asText())
        : null;
  }

  /**
   * The last line of a streamed call that failed after it began answering:
   * {@code {"error": "one sentence", "code": "version_conflict", "details": {...}}} — the message
   * where it always was, the code and details beside it as an answer's error body has them.
   */
  public static ObjectNode failedLine(Throwable failure) {
    ObjectNode line = ApiJson.object().put("error", String.valueOf(failure.getMessage()));
    if (failure instanceof GraphException graph) {
      line.put("code", ApiErrors.answer(graph.code()).code());
      line.set("details", ApiJson.MAPPER.valueToTree(graph.details()));
    } else {
      line.put("code", ApiErrors.answer(GraphException.Code.INTERNAL).code());
    }
    return line;
  }

  /**
   * A refusal read back as the {@link GraphException} it was: from an error body
   * ({@code {"error": {"code", "message", "details"}}}) or a failed stream's last line.
   */
  public static GraphException refusal(int status, JsonNode answer) {
    JsonNode error = answer.path("error");
    boolean line = error.isTextual();
    String message = (line ? error : error.path("message")).asText("");
    String wireName = (line ? answer.path("code") : error.path("code")).asText("");
    JsonNode details = line ? answer.path("details") : error.path("details");
    Map<String, Object> read = details.isObject()
        ? ApiJson.MAPPER.convertValue(details, ApiJson.MAPPER.getTypeFactory().constructMapType(Map.class, String.class,
            Object.class))
        : Map.of();
    return GraphException.of(ApiErrors.code(wireName, status), message.isEmpty() ? "the server answered " + status
        : message, read);
  }

  /** The status document: hosts by name, each with its outbox ({@code "unknown"} where not drained here). */
  public static ObjectNode write(StatusReport report) {
    ObjectNode status = ApiJson.object();
    status.put("shardMapVersion", report.shardMapVersion());
    status.put("schemaVersion", report.schemaVersion());
    status.put("zookeeper", report.zooKeeperUp() ? "up" : "down");
    status.set("hosts", writeHosts(report.hosts()));
    var caches = status.putArray("caches");
    for (StatusReport.CacheStatus cache : report.caches()) {
      caches.addObject().put("cache", cache.cache()).put("hits", cache.hits()).put("misses", cache.misses())
          .put("hitRatio", cache.hitRatio()).put("entries", cache.entries()).put("weightBytes", cache.weightBytes())
          .put("evictions", cache.evictions());
    }
    return status;
  }

  /** The hosts of a status document: each by name, its primary, replicas, state, shards, pool and outbox. */
  public static ObjectNode writeHosts(List<StatusReport.HostStatus> report) {
    ObjectNode hosts = ApiJson.object();
    for (StatusReport.HostStatus host : report) {
      ObjectNode entry = hosts.putObject(host.name());
      entry.put("primary", host.primary());
      host.replicas().forEach(entry.putArray("replicas")::add);
      if (!host.replicaLagMs().isEmpty()) {
        ObjectNode lags = entry.putObject("replicaLagMs");
        host.replicaLagMs().forEach(lags::put);
      }
      entry.put("state", host.state());
      if (host.problem() != null) {
        entry.put("problem", host.problem());
      }
      entry.put("shards", host.shards());
      entry.put("poolConnections", host.poolConnections());
      StatusReport.OutboxStatus outbox = host.outbox();
      if (outbox != null && outbox.known()) {
        entry.putObject("outbox").put("pending", outbox.pending()).put("parked", outbox.parked())
            .put("oldestPendingAgeMs", outbox.oldestPendingAgeMs());
      } else if (outbox != null) {
        entry.put("outbox", "unknown");
      }
    }
    return hosts;
  }

  /** The status document read back. */
  public static StatusReport readStatus(JsonNode status) {
    List<StatusReport.HostStatus> hosts = new ArrayList<>();
    status.path("hosts").fields().forEachRemaining(entry -> {
      JsonNode host = entry.getValue();
      JsonNode outbox = host.get("outbox");
      List<String> replicas = new ArrayList<>();
      host.path("replicas").forEach(replica -> replicas.add(replica.asText()));
      java.util.Map<String, Long> lags = new java.util.LinkedHashMap<>();
      host.path("replicaLagMs").fields().forEachRemaining(lag -> lags.put(lag.getKey(), lag.getValue().asLong()));
      hosts.add(new StatusReport.HostStatus(entry.getKey(), host.path("primary").asText(), replicas, lags,
          host.path("state").asText(),
          host.hasNonNull("problem") ? host.get("problem").asText() : null, host.path("shards").asInt(),
          host.path("poolConnections").asInt(), outbox == null ? null
              : outbox.isObject() ? StatusReport.OutboxStatus.of(outbox.path("pending").asLong(),
                  outbox.path("parked").asLong(), outbox.path("oldestPendingAgeMs").asLong())
              : StatusReport.OutboxStatus.UNKNOWN));
    });
    List<StatusReport.CacheStatus> caches = new ArrayList<>();
    for (JsonNode cache : status.path("caches")) {
      caches.add(new StatusReport.CacheStatus(cache.path("cache").asText(), cache.path("hits").asLong(),
          cache.path("misses").asLong(), cache.path("hitRatio").asDouble(), cache.path("entries").asLong(),
          cache.path("weightBytes").asLong(), cache.path("evictions").asLong()));
    }
    return new StatusReport(status.path("shardMapVersion").asLong(), status.path("schemaVersion").asLong(),
        "up".equals(status.path("zookeeper").asText()), hosts, caches);
  }
}
