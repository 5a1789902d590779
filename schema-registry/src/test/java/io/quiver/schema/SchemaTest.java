package io.quiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;
import org.junit.jupiter.api.Test;

class SchemaTest {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  private static final String DOCUMENT = """
      {"version": 3,
       "nodeTypes": {
         "user": {"id": 1, "fields": {"name": {"type": "string", "required": true}}},
         "pin":  {"id": 2, "strict": true,
                  "fields": {"link":  {"type": "string", "required": true},
                             "title": {"type": "string", "default": "untitled"},
                             "owner": {"type": "id", "nodeType": "user"},
                             "score": {"type": "number"}, "n": {"type": "integer"},
                             "tags":  {"type": "array"}, "meta": {"type": "object"},
                             "ok":    {"type": "boolean"}, "blob": {"type": "any"}}}},
       "edgeTypes": {
         "likes":    {"id": 1, "from": "user", "to": "pin", "inverse": "liked_by"},
         "liked_by": {"id": 2, "from": "pin", "to": "user", "inverse": "likes"},
         "friends":  {"id": 3, "from": "user", "to": "user", "inverse": "friends"}}}
      """;

  private static final Fields.IdTypes IDS = new Fields.IdTypes() {
    @Override
    public int typeIdOf(String nodeType) {
      return nodeType.equals("user") ? 1 : 2;
    }

    @Override
    public int typeOfId(long id) {
      return (int) ((id >>> 36) & 0x3FF);
    }
  };

  private static ObjectNode json(String text) throws Exception {
    return (ObjectNode) MAPPER.readTree(text);
  }

  @Test
  void parse_thenWrite_roundTrips() {
    Schema schema = SchemaJson.parse(DOCUMENT);

    assertThat(schema.version()).isEqualTo(3);
    assertThat(schema.nodeType(2)).map(NodeType::name).contains("pin");
    assertThat(schema.edgeType("friends").orElseThrow().symmetric()).isTrue();
    assertThat(SchemaJson.read(SchemaJson.write(schema))).isEqualTo(schema);
  }

  @Test
  void validate_reportsEveryViolationByPath() throws Exception {
    NodeType pin = SchemaJson.parse(DOCUMENT).nodeType("pin").orElseThrow();
    long pinId = (2L << 36) | 5;

    List<Violation> violations = pin.validate(json("""
        {"title": 5, "owner": "%d", "score": "high", "n": 1.5, "tags": {}, "meta": [],
         "ok": "yes", "blob": null, "colour": "red"}""".formatted(pinId)), IDS);

    assertThat(violations).extracting(Violation::path).containsExactlyInAnyOrder(
        "data.link", "data.title", "data.owner", "data.score", "data.n", "data.tags", "data.meta", "data.ok",
        "data.colour");
  }

  @Test
  void validate_acceptsGoodData_andIdsAsStringsOrNumbers() throws Exception {
    NodeType pin = SchemaJson.parse(DOCUMENT).nodeType("pin").orElseThrow();
    long userId = (1L << 36) | 9;

    assertThat(pin.validate(json("{\"link\": \"l\", \"owner\": \"" + userId + "\", \"n\": 2.0}"), IDS)).isEmpty();
    assertThat(pin.validate(json("{\"link\": \"l\", \"owner\": " + userId + "}"), IDS)).isEmpty();
  }

  @Test
  void withDefaults_fillsOnlyAbsentFields() throws Exception {
    NodeType pin = SchemaJson.parse(DOCUMENT).nodeType("pin").orElseThrow();

    assertThat(pin.withDefaults(json("{\"link\": \"l\"}"))).isEqualTo(json("{\"link\": \"l\", \"title\": \"untitled\"}"));
    assertThat(pin.withDefaults(json("{\"title\": \"mine\"}"))).isEqualTo(json("{\"title\": \"mine\"}"));
  }

  @Test
  void snapshot_refusesIncoherentDocuments() {
    assertThatThrownBy(() -> SchemaJson.parse(DOCUMENT.replace("\"inverse\": \"likes\"", "\"inverse\": \"friends\"")))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.INVERSE_PAIR_MISMATCH));
    assertThatThrownBy(() -> SchemaJson.parse(DOCUMENT.replace("\"id\": 2, \"strict\"", "\"id\": 1, \"strict\"")))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.TYPE_ID_NEVER_REUSED));
    assertThatThrownBy(() -> SchemaJson.parse(DOCUMENT.replace("\"from\": \"user\", \"to\": \"pin\"", "\"from\": \"user\", \"to\": \"boat\"")))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.UNDEFINED_NODE_TYPE));
    assertThatThrownBy(() -> SchemaJson.parse(DOCUMENT.replace("\"user\": {\"id\": 1", "\"User\": {\"id\": 1")))
        .isInstanceOfSatisfying(io.quiver.core.GraphException.class, invalid -> assertThat(invalid.code())
            .isEqualTo(io.quiver.core.GraphException.Code.INVALID_ARGUMENT)).hasMessageContaining("must match");
    assertThatThrownBy(() -> SchemaJson.parse(DOCUMENT.replace("\"default\": \"untitled\"", "\"default\": 7")))
        .isInstanceOfSatisfying(io.quiver.core.GraphException.class, invalid -> assertThat(invalid.code())
            .isEqualTo(io.quiver.core.GraphException.Code.INVALID_ARGUMENT)).hasMessageContaining("not a valid string");
    assertThatThrownBy(() -> SchemaJson.parse(DOCUMENT.replace("\"id\": 1, \"fields\"", "\"id\": 1024, \"fields\"")))
        .isInstanceOfSatisfying(io.quiver.core.GraphException.class, invalid -> assertThat(invalid.code())
            .isEqualTo(io.quiver.core.GraphException.Code.INVALID_ARGUMENT)).hasMessageContaining("1023");
  }

  @Test
  void names_refuseAnythingThatCouldCarrySql() {
    assertThat(Names.isValid("board_has_pins")).isTrue();
    assertThat(Names.isValid("pins; DROP TABLE x")).isFalse();
    assertThat(Names.isValid("a`b")).isFalse();
    assertThat(Names.isValid("_x")).isFalse();
    assertThat(Names.isValid("a".repeat(49))).isFalse();
  }

  @Test
  void aUniqueField_isStringOrInteger_withoutDefault_onNodeTypesOnly_withATableNameThatFits() {
    assertThatThrownBy(() -> new FieldDef(FieldType.NUMBER, false, null, null, UniqueIndex.DECLARED))
        .hasMessageContaining("only string and integer");
    assertThatThrownBy(() -> new FieldDef(FieldType.STRING, false, new com.fasterxml.jackson.databind.node.TextNode("x"),
        null, UniqueIndex.DECLARED)).hasMessageContaining("cannot have a default");
    FieldDef unique = new FieldDef(FieldType.STRING, false, null, null, UniqueIndex.DECLARED);
    assertThatThrownBy(() -> new EdgeType("likes", 1, "user", "user", null,
        new Fields(java.util.Map.of("f", unique), false))).hasMessageContaining("cannot be unique");
    assertThatThrownBy(() -> new NodeType("user", 1, new Fields(java.util.Map.of("a".repeat(60), unique), false)))
        .hasMessageContaining("lookup table");
    assertThat(new NodeType("user", 1, new Fields(java.util.Map.of("username", unique), false)).uniqueFields())
        .containsOnlyKeys("username");
  }

  @Test
  void uniqueKeys_compareStringsExactly_andIntegersByValue_andHomeShardsStayWithinTheIndexsCount() {
    var json = com.fasterxml.jackson.databind.node.JsonNodeFactory.instance;
    assertThat(UniqueIndex.key(FieldType.INTEGER, json.numberNode(5.0))).isEqualTo("5");
    assertThat(UniqueIndex.key(FieldType.INTEGER, json.numberNode(5L))).isEqualTo("5");
    assertThat(UniqueIndex.key(FieldType.STRING, json.textNode("Alice"))).isNotEqualTo(
        UniqueIndex.key(FieldType.STRING, json.textNode("alice")));
    assertThat(UniqueIndex.key(FieldType.STRING, json.numberNode(5))).as("not of the field's type").isNull();
    UniqueIndex index = new UniqueIndex(3, UniqueIndex.State.ACTIVE);
    java.util.Set<Integer> homes = new java.util.HashSet<>();
    for (int i = 0; i < 300; i++) {
      homes.add(index.homeShard(UniqueIndex.hash("user" + i)));
    }
    assertThat(homes).containsExactlyInAnyOrder(0, 1, 2);
    assertThat(index.homeShard(UniqueIndex.hash("x"))).as("a key's home is fixed").isEqualTo(index.homeShard(UniqueIndex.hash("x")));
  }

  @Test
  void uniqueIndexes_readTrueAsDeclared_andRoundTripTheirStoredForm() {
    Schema schema = SchemaJson.parse("{\"nodeTypes\": {\"user\": {\"id\": 1, \"fields\": {"
        + "\"a\": {\"type\": \"string\", \"unique\": true},"
        + "\"b\": {\"type\": \"integer\", \"unique\": {\"shards\": 4, \"state\": \"active\"}},"
        + "\"c\": {\"type\": \"string\", \"unique\": false}}}}}");
    var fields = schema.nodeType("user").orElseThrow().fields().definitions();
    assertThat(fields.get("a").unique()).isEqualTo(UniqueIndex.DECLARED);
    assertThat(fields.get("b").unique()).isEqualTo(new UniqueIndex(4, UniqueIndex.State.ACTIVE));
    assertThat(fields.get("c").unique()).isNull();
    assertThat(SchemaJson.read(SchemaJson.write(schema))).isEqualTo(schema);
    assertThatThrownBy(() -> SchemaJson.parse("{\"nodeTypes\": {\"user\": {\"id\": 1, \"fields\": {"
        + "\"a\": {\"type\": \"string\", \"unique\": {\"shards\": 4, \"state\": \"done\"}}}}}}"))
        .hasMessageContaining("unknown unique index state");
  }
}
