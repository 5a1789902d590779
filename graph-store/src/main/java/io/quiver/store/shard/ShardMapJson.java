package io.quiver.store.shard;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.core.zk.DocumentCodec;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The shard map's document form, as stored in ZooKeeper:
 *
 * <pre>{@code
 * {"version": 7,
 *  "hosts":  {"h1": {"primary": "10.0.0.1:3306", "replicas": ["10.0.0.2:3306"]}},
 *  "ranges": [{"from": 0, "to": 511, "host": "h1"}],
 *  "open":   [[0, 511]],
 *  "state":  {"17": "read-only"}}
 * }</pre>
 */
public final class ShardMapJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  /** The shard map as a ZooKeeper document. */
  public static final DocumentCodec<ShardMap> CODEC = new DocumentCodec<>() {
    @Override
    public ShardMap parse(byte[] bytes) {
      return ShardMapJson.parse(bytes);
    }

    @Override
    public byte[] toBytes(ShardMap map) {
      return ShardMapJson.toBytes(map);
    }

    @Override
    public long version(ShardMap map) {
      return map.version();
    }
  };

  private ShardMapJson() {}

  /** Parses and validates a document; a bad one fails with a message naming what is wrong. */
  public static ShardMap parse(byte[] document) {
    JsonNode root;
    try {
      root = MAPPER.readTree(document);
    } catch (IOException e) {
      throw GraphException.invalid("shard map is not valid JSON: " + e.getMessage());
    }
    return read(root);
  }

  /** Validates a document already parsed (the admin API's answer, read back). */
  public static ShardMap read(JsonNode root) {
    if (root == null || !root.isObject()) {
      throw GraphException.invalid("shard map must be a JSON object");
    }
    return new ShardMap(
        root.path("version").asLong(-1), readHosts(root.path("hosts")), readRanges(root.path("ranges")),
        readOpen(root.path("open")), readStates(root.path("state")));
  }

  public static byte[] toBytes(ShardMap map) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(write(map));
    } catch (IOException e) {
      throw new IllegalStateException("cannot happen: writing a tree to bytes", e);
    }
  }

  public static ObjectNode write(ShardMap map) {
    ObjectNode root = MAPPER.createObjectNode();
    root.put("version", map.version());
    ObjectNode hosts = root.putObject("hosts");
    map.hosts().values().stream().sorted((a, b) -> a.name().compareTo(b.name())).forEach(host -> {
      ObjectNode body = hosts.putObject(host.name());
      body.put("primary", host.primary());
      ArrayNode replicas = body.putArray("replicas");
      host.replicas().forEach(replicas::add);
    });
    ArrayNode ranges = root.putArray("ranges");
    for (ShardRange range : map.ranges()) {
      ranges.addObject().put("from", range.from()).put("to", range.to()).put("host", range.host());
    }
    ArrayNode open = root.putArray("open");
    map.open().forEach(span -> open.addArray().add(span.from()).add(span.to()));
    ObjectNode states = root.putObject("state");
    map.states().entrySet().stream().sorted(Map.Entry.comparingByKey())
        .forEach(entry -> states.put(entry.getKey().toString(), entry.getValue().jsonName()));
    return root;
  }

  private static Map<String, Host> readHosts(JsonNode node) {
    Map<String, Host> hosts = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      List<String> replicas = new ArrayList<>();
      entry.getValue().path("replicas").forEach(replica -> replicas.add(replica.asText()));
      JsonNode primary = entry.getValue().get("primary");
      hosts.put(entry.getKey(), new Host(entry.getKey(), primary == null ? null : primary.asText(), replicas));
    }
    return hosts;
  }

  private static List<ShardRange> readRanges(JsonNode node) {
    List<ShardRange> ranges = new ArrayList<>();
    for (JsonNode range : node) {
      ranges.add(new ShardRange(
          requiredInt(range, "from"), requiredInt(range, "to"), range.path("host").asText(null)));
    }
    return ranges;
  }

  private static List<ShardSpan> readOpen(JsonNode node) {
    List<ShardSpan> spans = new ArrayList<>();
    for (JsonNode span : node) {
      if (!span.isArray() || span.size() != 2 || !span.get(0).isInt() || !span.get(1).isInt()) {
        throw GraphException.invalid("each open span must be [from, to]; got " + span);
      }
      spans.add(new ShardSpan(span.get(0).intValue(), span.get(1).intValue()));
    }
    return spans;
  }

  private static Map<Integer, ShardState> readStates(JsonNode node) {
    Map<Integer, ShardState> states = new LinkedHashMap<>();
    for (Iterator<Map.Entry<String, JsonNode>> it = node.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      int shard;
      try {
        shard = Integer.parseInt(entry.getKey());
      } catch (NumberFormatException e) {
        throw GraphException.invalid("state key '" + entry.getKey() + "' is not a shard number");
      }
      states.put(shard, ShardState.fromJsonName(entry.getValue().asText()));
    }
    return states;
  }

  private static int requiredInt(JsonNode node, String field) {
    JsonNode value = node.get(field);
    if (value == null || !value.isInt()) {
      throw GraphException.invalid("range needs an integer '" + field + "'; got " + node);
    }
    return value.intValue();
  }
}
