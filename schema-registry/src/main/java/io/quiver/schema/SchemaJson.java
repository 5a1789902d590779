package io.quiver.schema;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/**
 * Reads and writes the registry's JSON documents, in the shapes of the HTTP API:
 *
 * <pre>{@code
 * {"version": 3,
 *  "nodeTypes": {"pin": {"id": 1, "strict": false,
 *                        "fields": {"link": {"type": "string", "required": true}}}},
 *  "edgeTypes": {"board_has_pins": {"id": 1, "from": "board", "to": "pin",
 *                                   "inverse": "pin_owned_by_board", "fields": {}}}}
 * }</pre>
 */
public final class SchemaJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  /** The registry as a ZooKeeper document. */
  public static final io.quiver.core.zk.DocumentCodec<Schema> CODEC = new io.quiver.core.zk.DocumentCodec<>() {
    @Override
    public Schema parse(byte[] bytes) {
      try {
        return read(MAPPER.readTree(bytes));
      } catch (java.io.IOException e) {
        throw GraphException.invalid("schema document is not valid JSON: " + e.getMessage());
      }
    }

    @Override
    public byte[] toBytes(Schema schema) {
      try {
        return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(write(schema));
      } catch (JsonProcessingException e) {
        throw new IllegalStateException("cannot happen: writing a JSON tree", e);
      }
    }

    @Override
    public long version(Schema schema) {
      return schema.version();
    }
  };

  private SchemaJson() {}

  public static Schema parse(String json) {
    try {
      return read(MAPPER.readTree(json));
    } catch (JsonProcessingException e) {
      throw GraphException.invalid("schema document is not valid JSON: " + e.getOriginalMessage());
    }
  }

  public static Schema read(JsonNode document) {
    ObjectNode root = object(document, "schema document");
    onlyMembers(root, "the schema document", Set.of("version", "nodeTypes", "edgeTypes"));
    Map<String, NodeType> nodeTypes = new LinkedHashMap<>();
    Map<String, EdgeType> edgeTypes = new LinkedHashMap<>();
    forEachField(root.get("nodeTypes"), "nodeTypes",
        (name, body) -> nodeTypes.put(name, readNodeType(name, body)));
    forEachField(root.get("edgeTypes"), "edgeTypes",
        (name, body) -> edgeTypes.put(name, readEdgeType(name, body)));
    return new Schema(root.path("version").asLong(0), nodeTypes, edgeTypes);
  }

  /** The members a node type's definition may have; a stored one also remembers its retired fields. */
  public static final Set<String> NODE_TYPE_MEMBERS = Set.of("id", "strict", "fields");
  /** The members an edge type's definition may have. */
  public static final Set<String> EDGE_TYPE_MEMBERS = Set.of("id", "from", "to", "inverse", "fields");
  private static final String RETIRED = "retiredFields";

  public static NodeType readNodeType(String name, JsonNode body) {
    ObjectNode type = object(body, "node type '" + name + "'");
    onlyMembers(type, "node type '" + name + "'", with(NODE_TYPE_MEMBERS, RETIRED));
    boolean strict = optionalBoolean(type, "strict", name, false);
    return new NodeType(name, requiredInt(type, "id", name), readFields(type, strict));
  }

  public static EdgeType readEdgeType(String name, JsonNode body) {
    ObjectNode type = object(body, "edge type '" + name + "'");
    onlyMembers(type, "edge type '" + name + "'", with(EDGE_TYPE_MEMBERS, RETIRED));
    return new EdgeType(
        name,
        requiredInt(type, "id", name),
        requiredText(type, "from", name),
        requiredText(type, "to", name),
        type.hasNonNull("inverse") ? requiredText(type, "inverse", name) : null,
        readFields(type, false));
  }

  public static ObjectNode write(Schema schema) {
    ObjectNode root = NODES.objectNode();
    root.put("version", schema.version());
    ObjectNode nodeTypes = root.putObject("nodeTypes");
    schema.nodeTypes().forEach((name, type) -> nodeTypes.set(name, write(type)));
    ObjectNode edgeTypes = root.putObject("edgeTypes");
    schema.edgeTypes().forEach((name, type) -> edgeTypes.set(name, write(type)));
    return root;
  }

  public static ObjectNode write(NodeType type) {
    ObjectNode body = NODES.objectNode();
    body.put("id", type.id());
    body.put("strict", type.strict());
    body.set("fields", write(type.fields().definitions()));
    writeRetired(body, type.fields());
    return body;
  }

  public static ObjectNode write(EdgeType type) {
    ObjectNode body = NODES.objectNode();
    body.put("id", type.id());
    body.put("from", type.from());
    body.put("to", type.to());
    if (type.inverse() != null) {
      body.put("inverse", type.inverse());
    }
    body.set("fields", write(type.fields().definitions()));
    writeRetired(body, type.fields());
    return body;
  }

  private static void writeRetired(ObjectNode body, Fields fields) {
    if (!fields.retired().isEmpty()) {
      body.set(RETIRED, write(fields.retired()));
    }
  }

  private static ObjectNode write(Map<String, FieldDef> fields) {
    ObjectNode body = NODES.objectNode();
    fields.forEach((name, field) -> body.set(name, write(field)));
    return body;
  }

  /** One field's definition, as a type's {@code fields} member holds it. */
  public static ObjectNode write(FieldDef field) {
    ObjectNode def = NODES.objectNode();
    def.put("type", field.type().jsonName());
    if (field.required()) {
      def.put("required", true);
    }
    if (field.hasDefault()) {
      def.set("default", field.defaultValue().deepCopy());
    }
    if (field.nodeType() != null) {
      def.put("nodeType", field.nodeType());
    }
    if (field.unique() != null) {
      def.putObject("unique").put("shards", field.unique().shards()).put("state", field.unique().state().jsonName());
    }
    return def;
  }

  private static Fields readFields(ObjectNode type, boolean strict) {
    return new Fields(readDefinitions(type.get("fields"), "fields"), strict, readDefinitions(type.get(RETIRED), RETIRED));
  }

  private static Map<String, FieldDef> readDefinitions(JsonNode body, String what) {
    Map<String, FieldDef> definitions = new LinkedHashMap<>();
    forEachField(body, what, (name, def) -> definitions.put(name, readField(name, def)));
    return definitions;
  }

  private static FieldDef readField(String name, JsonNode body) {
    ObjectNode def = object(body, "field '" + name + "'");
    onlyMembers(def, "field '" + name + "'", Set.of("type", "required", "default", "nodeType", "unique"));
    String type = requiredText(def, "type", name);
    try {
      return new FieldDef(
          FieldType.fromJsonName(type),
          optionalBoolean(def, "required", name, false),
          def.get("default"),
          def.hasNonNull("nodeType") ? requiredText(def, "nodeType", name) : null,
          readUnique(def.get("unique"), name));
    } catch (GraphException e) {
      throw GraphException.of(e.code(), "field '" + name + "': " + e.getMessage(), e.details());
    }
  }

  /**
   * {@code "unique": true} declares an index (the registry fixes its shard count); the stored form,
   * {@code {"shards": 8, "state": "active"}}, is what reading the schema answers and may be sent
   * back as it is.
   */
  private static UniqueIndex readUnique(JsonNode value, String field) {
    if (value == null || value.isNull() || (value.isBoolean() && !value.booleanValue())) {
      return null;
    }
    if (value.isBoolean()) {
      return UniqueIndex.DECLARED;
    }
    ObjectNode index = object(value, "field '" + field + "' member 'unique'");
    onlyMembers(index, "field '" + field + "' member 'unique'", Set.of("shards", "state"));
    return new UniqueIndex(requiredInt(index, "shards", field),
        UniqueIndex.State.fromJsonName(requiredText(index, "state", field)));
  }

  private interface FieldVisitor {
    void visit(String name, JsonNode body);
  }

  private static void forEachField(JsonNode node, String what, FieldVisitor visitor) {
    if (node == null || node.isNull()) {
      return;
    }
    ObjectNode object = object(node, what);
    for (Iterator<Map.Entry<String, JsonNode>> it = object.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      visitor.visit(entry.getKey(), entry.getValue());
    }
  }

  private static ObjectNode object(JsonNode node, String what) {
    if (node == null || !node.isObject()) {
      throw GraphException.invalid(what + " must be a JSON object");
    }
    return (ObjectNode) node;
  }

  /** Refuses members the definition does not have: a typo, or a member of another kind of type. */
  private static void onlyMembers(ObjectNode node, String what, Set<String> allowed) {
    for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
      String name = names.next();
      if (!allowed.contains(name)) {
        throw GraphException.invalid(what + " has no member '" + name + "'; its members are " + new TreeSet<>(allowed));
      }
    }
  }

  private static Set<String> with(Set<String> members, String more) {
    Set<String> all = new HashSet<>(members);
    all.add(more);
    return all;
  }

  /** A JSON boolean if present: "yes", 1 or "true" are refused rather than guessed at. */
  private static boolean optionalBoolean(ObjectNode node, String field, String owner, boolean fallback) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return fallback;
    }
    if (!value.isBoolean()) {
      throw GraphException.invalid("'" + owner + "' member '" + field + "' must be true or false, got " + value);
    }
    return value.booleanValue();
  }

  private static int requiredInt(ObjectNode node, String field, String owner) {
    JsonNode value = node.get(field);
    if (value == null || !value.canConvertToInt() || !value.isIntegralNumber()) {
      throw GraphException.invalid("'" + owner + "' needs an integer '" + field + "'");
    }
    return value.intValue();
  }

  private static String requiredText(ObjectNode node, String field, String owner) {
    JsonNode value = node.get(field);
    if (value == null || !value.isTextual()) {
      throw GraphException.invalid("'" + owner + "' needs a string '" + field + "'");
    }
    return value.textValue();
  }
}
