package io.quiver.client;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;

/**
 * One committed change, as the change log answers it ({@link QuiverClient#changes}); or, while
 * following ({@link QuiverClient#follow}), a heartbeat ({@link #heartbeat()}): after 5 s without a
 * change the server says it is still there, with the cursor a consumer stands at; or, for a member of
 * a consumer group ({@link QuiverClient#followGroup}), the shards the group dealt it ({@link #assigned()}).
 *
 * @param cursor where a consumer stands once it has processed this event: keep it, and resume from it
 * @param shard the shard whose log holds it
 * @param position its position there: per shard, in the order changes became visible (per node and
 *     per edge list, commit order); across shards there is no order
 * @param kind {@code node} or {@code edge}; {@code failover} marks where a failover made the shard's
 *     positions jump (no data changed)
 * @param change a node's {@code created}, {@code updated} or {@code deleted}; an edge copy's
 *     {@code added}, {@code updated}, {@code archived}, {@code restored} or {@code removed}
 * @param event the whole event: the IDs ({@code id}, or {@code from}, {@code type}, {@code to}), a
 *     node's {@code version} or an edge's {@code sequence}, {@code listVersion}, {@code copy} and
 *     {@code state}, the after-image {@code data}, and {@code writtenAt}
 */
public record ChangeEvent(String cursor, int shard, long position, String kind, String change, JsonNode event) {
  /** Whether this is a heartbeat, not a change: only its cursor means something. */
  public boolean heartbeat() {
    return kind.equals("heartbeat");
  }

  /**
   * Whether this is a consumer group's deal, not a change ({@link QuiverClient#followGroup}): the
   * shards this member reads from now on ({@link #assignedShards()}), and its cursor over them.
   */
  public boolean assigned() {
    return kind.equals("assigned");
  }

  /** The shards a group's deal gave this member; empty for anything but {@link #assigned()}. */
  public List<Integer> assignedShards() {
    List<Integer> shards = new ArrayList<>();
    event.path("assigned").forEach(shard -> shards.add(shard.asInt()));
    return List.copyOf(shards);
  }

  static ChangeEvent of(JsonNode line) {
    if (line.path("heartbeat").asBoolean(false)) {
      return new ChangeEvent(line.path("cursor").asText(), -1, -1, "heartbeat", "", line);
    }
    if (line.has("assigned")) {
      return new ChangeEvent(line.path("cursor").asText(), -1, -1, "assigned", "", line);
    }
    return new ChangeEvent(line.path("cursor").asText(), line.path("shard").asInt(), line.path("position").asLong(),
        line.path("kind").asText(), line.path("change").asText(), line);
  }
}
