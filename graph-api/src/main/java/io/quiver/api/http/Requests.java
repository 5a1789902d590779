package io.quiver.api.http;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import io.quiver.schema.Ids;
import io.quiver.store.AtomicRead;
import io.quiver.store.Cursor;
import io.quiver.store.EdgeCondition;
import io.quiver.store.EdgeId;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeState;
import io.quiver.store.TargetQuery;
import io.quiver.store.GraphStore;
import io.quiver.store.NodeId;
import io.quiver.store.Order;
import io.vertx.core.buffer.Buffer;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;

/**
 * Reads what a request says, refusing anything malformed with INVALID_ARGUMENT and a sentence
 * naming the bad part. Nothing here touches storage, so a refused request changes nothing.
 */
final class Requests {
  static final int MAX_IDS_PER_GET = 500;

  private Requests() {}

  static NodeId pathId(RoutingContext ctx, String param) {
    String text = ctx.pathParam(param);
    return NodeId.parse(text).orElseThrow(() -> GraphException.invalid("'" + text + "' is not a node ID"));
  }

  static String pathName(RoutingContext ctx, String param) {
    return ctx.pathParam(param);
  }

  /** The body as a JSON object; an empty body is an empty object. */
  static ObjectNode body(RoutingContext ctx, Set<String> allowedMembers) {
    Buffer buffer = ctx.body().buffer();
    if (buffer == null || buffer.length() == 0) {
      return ApiJson.object();
    }
    return object(JsonBodies.read(buffer.getBytes()), "the body", allowedMembers);
  }

  /** A JSON value that must be an object with only the allowed members; {@code what} names it in errors. */
  static ObjectNode object(JsonNode json, String what, Set<String> allowedMembers) {
    if (!(json instanceof ObjectNode object)) {
      throw GraphException.invalid(what + " must be a JSON object");
    }
    for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowedMembers.contains(name)) {
        throw GraphException.invalid("unknown member '" + name + "' in " + what + "; expected " + allowedMembers);
      }
    }
    return object;
  }

  /** The body's {@code data} object, if present. */
  static ObjectNode data(ObjectNode body, boolean required) {
    JsonNode data = body.get("data");
    if (data == null || data.isNull()) {
      if (required) {
        throw GraphException.invalid("the body needs a 'data' object");
      }
      return null;
    }
    if (!(data instanceof ObjectNode object)) {
      throw GraphException.invalid("'data' must be a JSON object");
    }
    JsonBodies.requireStorableDepth(object, "data");
    return object;
  }

  static NodeId idMember(ObjectNode body, String member) {
    JsonNode value = body.get(member);
    if (value == null || value.isNull()) {
      return null;
    }
    return NodeId.fromLong(Ids.parse(value))
        .orElseThrow(() -> GraphException.invalid("'" + member + "' is not a node ID: " + value));
  }

  /** A required string member. */
  static String textMember(ObjectNode object, String member) {
    JsonNode value = object.get(member);
    if (value == null || !value.isTextual()) {
      throw GraphException.invalid("'" + member + "' must be a string");
    }
    return value.textValue();
  }

  static Long longMember(ObjectNode body, String member) {
    JsonNode value = body.get(member);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isIntegralNumber() || !value.canConvertToLong()) {
      throw GraphException.invalid("'" + member + "' must be a 64-bit integer, got " + value);
    }
    return value.longValue();
  }

  /** A boolean member; absent or null is false. */
  static boolean booleanMember(ObjectNode body, String member) {
    JsonNode value = body.get(member);
    if (value == null || value.isNull()) {
      return false;
    }
    if (!value.isBoolean()) {
      throw GraphException.invalid("'" + member + "' must be true or false, got " + value);
    }
    return value.booleanValue();
  }

  /**
   * The set operation a {@code POST /v1/edges/query} body asks for:
   * {@code {"operation": "intersection", "lists": [{"from": id, "type": name}, …], "limit": n, "after": id}}.
   */
  static TargetQuery targetQuery(ObjectNode body) {
    JsonNode operation = body.get("operation");
    TargetQuery.Operation parsed = null;
    if (operation != null && operation.isTextual()) {
      for (TargetQuery.Operation candidate : TargetQuery.Operation.values()) {
        if (candidate.name().toLowerCase(Locale.ROOT).equals(operation.textValue())) {
          parsed = candidate;
        }
      }
    }
    if (parsed == null) {
      throw GraphException.invalid("'operation' must be intersection, union or difference, got " + operation);
    }
    JsonNode lists = body.get("lists");
    if (lists == null || !lists.isArray()) {
      throw GraphException.invalid("'lists' must be an array of {\"from\": id, \"type\": edge type}");
    }
    List<TargetQuery.EdgeList> edgeLists = new ArrayList<>();
    for (int i = 0; i < lists.size(); i++) {
      JsonNode list = lists.get(i);
      String where = "lists[" + i + "]";
      if (!(list instanceof ObjectNode object) || object.size() != 2 || !object.has("from")
          || !object.path("type").isTextual()) {
        throw GraphException.invalid("'" + where + "' must be {\"from\": id, \"type\": edge type}, got " + list);
      }
      edgeLists.add(new TargetQuery.EdgeList(idMember(object, "from"), object.get("type").textValue()));
    }
    Long limit = longMember(body, "limit");
    if (limit != null && (limit < 1 || limit > TargetQuery.MAX_LIMIT)) {
      throw GraphException.invalid("'limit' must be between 1 and " + TargetQuery.MAX_LIMIT + ", got " + limit);
    }
    return new TargetQuery(parsed, edgeLists, idMember(body, "after"),
        limit == null ? TargetQuery.DEFAULT_LIMIT : limit.intValue());
  }

  /** The IDs of a parameter such as {@code ?ids=a,b,c}: at least one, at most {@value #MAX_IDS_PER_GET}. */
  static List<NodeId> idList(RoutingContext ctx, String name) {
    String text = QueryParams.of(ctx).get(name);
    if (text == null || text.isBlank()) {
      throw GraphException.invalid("'" + name + "' must list at least one node ID");
    }
    String[] parts = text.split(",", -1);
    if (parts.length > MAX_IDS_PER_GET) {
      throw GraphException.invalid("'" + name + "' lists " + parts.length + " IDs; at most " + MAX_IDS_PER_GET
          + " are allowed");
    }
    List<NodeId> ids = new ArrayList<>(parts.length);
    for (String part : parts) {
      String trimmed = part.trim();
      ids.add(NodeId.parse(trimmed).orElseThrow(() -> GraphException.invalid("'" + trimmed + "' is not a node ID")));
    }
    return ids;
  }

  /** The IDs of a body member holding a JSON array of them: at least one, at most {@value #MAX_IDS_PER_GET}. */
  static List<NodeId> idArray(ObjectNode body, String member) {
    JsonNode array = boundedArray(body, member, "node ID", "IDs");
    List<NodeId> ids = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      JsonNode value = array.get(i);
      int index = i;
      ids.add(NodeId.fromLong(Ids.parse(value)).orElseThrow(() ->
          GraphException.invalid("'" + member + "[" + index + "]' is not a node ID: " + value)));
    }
    return ids;
  }

  /** A body member holding a JSON array of one to {@value #MAX_IDS_PER_GET} items; {@code item} and {@code items} name them in errors. */
  private static JsonNode boundedArray(ObjectNode body, String member, String item, String items) {
    JsonNode array = body.get(member);
    if (array == null || !array.isArray() || array.isEmpty()) {
      throw GraphException.invalid("'" + member + "' must be an array of at least one " + item);
    }
    if (array.size() > MAX_IDS_PER_GET) {
      throw GraphException.invalid("'" + member + "' lists " + array.size() + " " + items + "; at most "
          + MAX_IDS_PER_GET + " are allowed");
    }
    return array;
  }

  private static final Set<String> EDGE_ID_MEMBERS = Set.of("from", "type", "to");

  /**
   * The edges of a body member holding a JSON array of {@code {"from", "type", "to"}} objects: at
   * least one, at most {@value #MAX_IDS_PER_GET}.
   */
  static List<EdgeId> edgeIdArray(ObjectNode body, String member) {
    JsonNode array = boundedArray(body, member, "{\"from\", \"type\", \"to\"}", "edges");
    List<EdgeId> ids = new ArrayList<>(array.size());
    for (int i = 0; i < array.size(); i++) {
      String what = "'" + member + "[" + i + "]'";
      ObjectNode edge = object(array.get(i), what, EDGE_ID_MEMBERS);
      NodeId from = idMember(edge, "from");
      NodeId to = idMember(edge, "to");
      if (from == null || to == null) {
        throw GraphException.invalid(what + " must name 'from', 'type' and 'to'");
      }
      ids.add(new EdgeId(from, textMember(edge, "type"), to));
    }
    return ids;
  }

  private static final Set<String> LIST_READ_MEMBERS = Set.of("from", "type", "limit");

  /**
   * A multi-read's body: {@code nodes}, an array of node IDs, and {@code lists}, an array of
   * {@code {"from", "type", "limit"}} (limit 20 when absent); either may be absent, not both.
   */
  static MultiRead multiRead(ObjectNode body) {
    List<NodeId> nodes = body.has("nodes") ? idArray(body, "nodes") : List.of();
    List<AtomicRead.ListRead> lists = new ArrayList<>();
    if (body.has("lists")) {
      JsonNode array = boundedArray(body, "lists", "{\"from\", \"type\", \"limit\"}", "lists");
      for (int i = 0; i < array.size(); i++) {
        String what = "'lists[" + i + "]'";
        ObjectNode list = object(array.get(i), what, LIST_READ_MEMBERS);
        NodeId from = idMember(list, "from");
        if (from == null) {
          throw GraphException.invalid(what + " must name 'from' and 'type'");
        }
        Long limit = longMember(list, "limit");
        lists.add(new AtomicRead.ListRead(from, textMember(list, "type"),
            limit == null ? 20 : (int) Math.max(Integer.MIN_VALUE, Math.min(Integer.MAX_VALUE, limit))));
      }
    }
    if (nodes.isEmpty() && lists.isEmpty()) {
      throw GraphException.invalid("a multi-read names 'nodes', 'lists' or both");
    }
    return new MultiRead(nodes, lists);
  }

  /** What a multi-read asks for. */
  record MultiRead(List<NodeId> nodes, List<AtomicRead.ListRead> lists) {}

  /** A multi-get's {@code ?state=}: {@code active} (by default), {@code archived}, or {@code all} for both. */
  static Set<EdgeState> states(RoutingContext ctx) {
    String value = QueryParams.of(ctx).get("state");
    return "all".equals(value) ? EnumSet.allOf(EdgeState.class) : EnumSet.of(edgeState(value));
  }

  /** The version of {@code If-Match: "3"}; {@link GraphStore#ANY_VERSION} when absent or {@code *}. */
  static long ifMatch(RoutingContext ctx) {
    String header = ctx.request().getHeader("If-Match");
    if (header == null || header.isBlank() || header.trim().equals("*")) {
      return GraphStore.ANY_VERSION;
    }
    String tag = header.trim();
    if (tag.length() >= 2 && tag.startsWith("\"") && tag.endsWith("\"")) {
      tag = tag.substring(1, tag.length() - 1);
    }
    long version = Ids.parse(tag);
    if (version < 0) {
      throw GraphException.invalid("If-Match must be a version in quotes, such as \"3\"; got " + header);
    }
    return version;
  }

  /**
   * An edge write's condition: {@code If-None-Match: *} (no edge there), {@code If-Match: *} (an
   * edge there) or {@code If-Match: "5"} (an edge at sequence 5); none without either header.
   */
  static EdgeCondition edgeCondition(RoutingContext ctx) {
    String match = ctx.request().getHeader("If-Match");
    String noneMatch = ctx.request().getHeader("If-None-Match");
    if (match != null && noneMatch != null) {
      throw GraphException.invalid("an edge write takes If-Match or If-None-Match, not both");
    }
    if (noneMatch != null) {
      if (!noneMatch.trim().equals("*")) {
        throw GraphException.invalid("If-None-Match on an edge must be *: add only if there is no edge; got "
            + noneMatch);
      }
      return EdgeCondition.ABSENT;
    }
    if (match == null) {
      return EdgeCondition.NONE;
    }
    long sequence = ifMatch(ctx);
    return sequence == GraphStore.ANY_VERSION ? EdgeCondition.PRESENT : EdgeCondition.atSequence(sequence);
  }

  /** The body's {@code if}: the values a node's data fields must hold for the write to apply; empty when absent. */
  static ObjectNode fieldsCondition(ObjectNode body) {
    JsonNode condition = body.get("if");
    if (condition == null) {
      return ApiJson.object();
    }
    if (!(condition instanceof ObjectNode fields) || fields.isEmpty()) {
      throw GraphException.invalid("'if' must be an object of data fields and the values they must hold, such as"
          + " {\"status\": \"open\"}");
    }
    return fields;
  }

  /** The page a query string asks for; {@link EdgeQuery} itself refuses values out of range. */
  static EdgeQuery edgeQuery(RoutingContext ctx) {
    int limit = intParam(ctx, "limit", EdgeQuery.DEFAULT_LIMIT);
    int offset = intParam(ctx, "offset", 0);
    String after = QueryParams.of(ctx).get("after");
    Cursor cursor = after == null || after.isEmpty() ? null
        : Cursor.decode(after).orElseThrow(() -> GraphException.invalid("'after' is not a cursor this API returned"));
    return new EdgeQuery(limit, cursor, offset, order(ctx), optionalLongParam(ctx, "minSeq"),
        optionalLongParam(ctx, "maxSeq"), state(ctx));
  }

  /** {@code ?state=active} (the list, by default) or {@code archived}. */
  private static EdgeState state(RoutingContext ctx) {
    return edgeState(QueryParams.of(ctx).get("state"));
  }

  /** A body's {@code state} member: absent or null is active. */
  static EdgeState stateMember(ObjectNode body) {
    JsonNode value = body.get("state");
    if (value == null || value.isNull()) {
      return EdgeState.ACTIVE;
    }
    if (!value.isTextual()) {
      throw GraphException.invalid("'state' must be \"active\" or \"archived\", got " + value);
    }
    return edgeState(value.textValue());
  }

  /** An edge state as the API spells it: {@code active} (also when absent) or {@code archived}. */
  static EdgeState edgeState(String value) {
    if (value == null || value.isEmpty() || value.equals("active")) {
      return EdgeState.ACTIVE;
    }
    if (value.equals("archived")) {
      return EdgeState.ARCHIVED;
    }
    throw GraphException.invalid("'state' must be active or archived, got '" + value + "'");
  }

  static boolean flag(RoutingContext ctx, String name) {
    String value = QueryParams.of(ctx).get(name);
    if (value == null || value.isEmpty() || value.equals("false")) {
      return false;
    }
    if (value.equals("true")) {
      return true;
    }
    throw GraphException.invalid("'" + name + "' must be true or false, got '" + value + "'");
  }

  private static Order order(RoutingContext ctx) {
    String value = QueryParams.of(ctx).get("order");
    if (value == null || value.isEmpty()) {
      return Order.DESC;
    }
    return switch (value.toLowerCase(Locale.ROOT)) {
      case "desc" -> Order.DESC;
      case "asc" -> Order.ASC;
      default -> throw GraphException.invalid("'order' must be asc or desc, got '" + value + "'");
    };
  }

  /** An integer parameter; one beyond the int range is refused as it is, not wrapped. */
  private static int intParam(RoutingContext ctx, String name, int fallback) {
    Long value = optionalLongParam(ctx, name);
    if (value == null) {
      return fallback;
    }
    if (value < Integer.MIN_VALUE || value > Integer.MAX_VALUE) {
      throw GraphException.invalid("'" + name + "' is out of range, got " + value);
    }
    return value.intValue();
  }

  private static Long optionalLongParam(RoutingContext ctx, String name) {
    String text = QueryParams.of(ctx).get(name);
    if (text == null || text.isEmpty()) {
      return null;
    }
    try {
      return Long.parseLong(text);
    } catch (NumberFormatException e) {
      throw GraphException.invalid("'" + name + "' must be an integer, got '" + text + "'");
    }
  }
}
