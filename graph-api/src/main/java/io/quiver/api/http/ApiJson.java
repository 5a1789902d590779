package io.quiver.api.http;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.store.Edge;
import io.quiver.store.Node;
import io.vertx.core.buffer.Buffer;
import java.time.Instant;
import java.time.ZoneOffset;
import java.time.format.DateTimeFormatter;

/**
 * The JSON shapes of the API. IDs are written as decimal strings (they exceed 2^53), timestamps
 * as RFC 3339 UTC with microseconds.
 */
public final class ApiJson {
  public static final ObjectMapper MAPPER = new ObjectMapper();
  public static final String CONTENT_TYPE = "application/json; charset=utf-8";
  private static final DateTimeFormatter TIMESTAMP =
      DateTimeFormatter.ofPattern("yyyy-MM-dd'T'HH:mm:ss.SSSSSS'Z'").withZone(ZoneOffset.UTC);

  private ApiJson() {}

  public static ObjectNode node(Node node) {
    ObjectNode json = MAPPER.createObjectNode();
    json.put("id", node.id().toString());
    json.put("type", node.type());
    json.put("shard", node.id().shard());
    json.set("data", node.data());
    json.put("version", node.version());
    json.put("createdAt", timestamp(node.createdAt()));
    json.put("updatedAt", timestamp(node.updatedAt()));
    return json;
  }

  public static ObjectNode edge(Edge edge) {
    ObjectNode json = MAPPER.createObjectNode();
    json.put("from", edge.from().toString());
    json.put("type", edge.type());
    json.put("to", edge.to().toString());
    json.put("sequence", edge.sequence());
    json.set("data", edge.data());
    json.put("updatedAt", timestamp(edge.updatedAt()));
    return json;
  }

  public static ArrayNode array() {
    return MAPPER.createArrayNode();
  }

  public static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  public static String timestamp(Instant instant) {
    return TIMESTAMP.format(instant);
  }

  public static Buffer buffer(JsonNode json) {
    try {
      return Buffer.buffer(MAPPER.writeValueAsBytes(json));
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot happen: writing a JSON tree", e);
    }
  }
}
