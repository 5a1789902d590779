package io.quiver.schema;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import io.quiver.core.GraphException;
import org.junit.jupiter.api.Test;

/** Each compatibility rule refuses a bad change, naming itself, and lets a good one through. */
class SchemaChangesTest {
  private static final Schema CURRENT = SchemaJson.parse("""
      {"version": 4,
       "nodeTypes": {"user": {"id": 1, "fields": {"name": {"type": "string", "required": true},
                                                  "age":  {"type": "integer"}}},
                     "pin":  {"id": 2, "fields": {}}},
       "edgeTypes": {"likes":    {"id": 1, "from": "user", "to": "pin", "inverse": "liked_by"},
                     "liked_by": {"id": 2, "from": "pin", "to": "user", "inverse": "likes"},
                     "views":    {"id": 3, "from": "user", "to": "pin"}}}
      """);

  private static com.fasterxml.jackson.databind.JsonNode toTree(String json) {
    try {
      return new com.fasterxml.jackson.databind.ObjectMapper().readTree(json);
    } catch (Exception e) {
      throw new IllegalArgumentException(e);
    }
  }

  private static Schema withUser(String json) {
    return CURRENT.with(SchemaJson.readNodeType("user", toTree(json)), 5);
  }

  private static Schema withEdge(String name, String json) {
    return CURRENT.with(SchemaJson.readEdgeType(name, toTree(json)), 5);
  }

  /** Refused when the proposed schema is built (a snapshot rule) or checked against the current one. */
  private static void refused(java.util.function.Supplier<Schema> proposed, SchemaRule rule) {
    assertThatThrownBy(() -> SchemaChanges.check(CURRENT, proposed.get()))
        .isInstanceOfSatisfying(GraphException.class, refusal -> {
          assertThat(refusal.code()).isEqualTo(GraphException.Code.INCOMPATIBLE_CHANGE);
          assertThat(SchemaRule.of(refusal)).contains(rule);
        });
  }

  private static void accepted(Schema proposed) {
    assertThatCode(() -> SchemaChanges.check(CURRENT, proposed)).doesNotThrowAnyException();
  }

  @Test
  void typeIds_areImmutable() {
    refused(() -> withUser("{\"id\": 9, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true}}}"),
        SchemaRule.TYPE_ID_IMMUTABLE);
    refused(() -> withEdge("likes", "{\"id\": 7, \"from\": \"user\", \"to\": \"pin\", \"inverse\": \"liked_by\"}"),
        SchemaRule.TYPE_ID_IMMUTABLE);
  }

  @Test
  void typeIds_areNeverReused() {
    refused(() -> CURRENT.with(SchemaJson.readNodeType("board", toTree("{\"id\": 2}")), 5), SchemaRule.TYPE_ID_NEVER_REUSED);
    refused(() -> withEdge("follows", "{\"id\": 2, \"from\": \"user\", \"to\": \"user\"}"), SchemaRule.TYPE_ID_NEVER_REUSED);
    accepted(CURRENT.with(SchemaJson.readNodeType("board", toTree("{\"id\": 3}")), 5));
  }

  @Test
  void aFieldsType_cannotChange() {
    refused(() -> withUser("{\"id\": 1, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true},"
        + " \"age\": {\"type\": \"string\"}}}"), SchemaRule.FIELD_TYPE_IMMUTABLE);
  }

  @Test
  void aNewRequiredField_needsADefault() {
    refused(() -> withUser("{\"id\": 1, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true},"
        + " \"age\": {\"type\": \"integer\"}, \"email\": {\"type\": \"string\", \"required\": true}}}"),
        SchemaRule.REQUIRED_FIELD_NEEDS_DEFAULT);
    refused(() -> withUser("{\"id\": 1, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true},"
        + " \"age\": {\"type\": \"integer\", \"required\": true}}}"), SchemaRule.REQUIRED_FIELD_NEEDS_DEFAULT);
    accepted(withUser("{\"id\": 1, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true},"
        + " \"age\": {\"type\": \"integer\"}, \"email\": {\"type\": \"string\", \"required\": true, \"default\": \"\"},"
        + " \"bio\": {\"type\": \"string\"}}}"));
  }

  @Test
  void anEdgeTypesEndsAndInverse_cannotChange() {
    refused(() -> withEdge("views", "{\"id\": 3, \"from\": \"pin\", \"to\": \"pin\"}"), SchemaRule.EDGE_ENDS_IMMUTABLE);
    refused(() -> withEdge("likes", "{\"id\": 1, \"from\": \"pin\", \"to\": \"pin\", \"inverse\": \"liked_by\"}"),
        SchemaRule.INVERSE_PAIR_MISMATCH);
    refused(() -> withEdge("views", "{\"id\": 3, \"from\": \"user\", \"to\": \"pin\", \"inverse\": \"viewed_by\"}"),
        SchemaRule.INVERSE_IMMUTABLE);
    refused(() -> withEdge("likes", "{\"id\": 1, \"from\": \"user\", \"to\": \"pin\"}"), SchemaRule.INVERSE_PAIR_MISMATCH);
    accepted(withEdge("likes", "{\"id\": 1, \"from\": \"user\", \"to\": \"pin\", \"inverse\": \"liked_by\","
        + " \"fields\": {\"at\": {\"type\": \"integer\"}}}"));
  }

  @Test
  void strictness_cannotBeTurnedOn() {
    refused(() -> withUser("{\"id\": 1, \"strict\": true, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true}}}"),
        SchemaRule.STRICTNESS_CANNOT_BE_TURNED_ON);
  }

  @Test
  void anInversePair_mustNameEachOther_andASymmetricTypeNamesItself() {
    refused(() -> withEdge("pinned", "{\"id\": 5, \"from\": \"pin\", \"to\": \"user\", \"inverse\": \"likes\"}"),
        SchemaRule.INVERSE_PAIR_MISMATCH);
    refused(() -> CURRENT.with(SchemaJson.readEdgeType("friends",
        toTree("{\"id\": 6, \"from\": \"user\", \"to\": \"pin\", \"inverse\": \"friends\"}")), 5),
        SchemaRule.INVERSE_PAIR_MISMATCH);
    accepted(withEdge("friends", "{\"id\": 6, \"from\": \"user\", \"to\": \"user\", \"inverse\": \"friends\"}"));
    Schema pending = withEdge("follows", "{\"id\": 7, \"from\": \"user\", \"to\": \"user\", \"inverse\": \"followed_by\"}");
    accepted(pending);
    org.assertj.core.api.Assertions.assertThat(pending.pendingInverses()).extracting(EdgeType::name).containsExactly("follows");
  }

  @Test
  void types_areNeverRemoved() {
    Schema without = new Schema(5, java.util.Map.of("user", CURRENT.nodeTypes().get("user"),
        "pin", CURRENT.nodeTypes().get("pin")), java.util.Map.of());
    refused(() -> without, SchemaRule.TYPE_NEVER_REMOVED);
  }

  @Test
  void aStrictType_cannotLoseAField() {
    Schema strict = SchemaJson.parse("""
        {"version": 1, "nodeTypes": {"tag": {"id": 7, "strict": true,
          "fields": {"label": {"type": "string"}, "colour": {"type": "string"}}}}}""");
    assertThatThrownBy(() -> SchemaChanges.check(strict, strict.with(
            SchemaJson.readNodeType("tag", toTree("{\"id\": 7, \"strict\": true, \"fields\": {\"label\": {\"type\": \"string\"}}}")), 2)))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.FIELD_REMOVED_FROM_STRICT_TYPE));
  }

  @Test
  void aRemovedField_canOnlyComeBackAsItWas() {
    Schema removed = SchemaChanges.carryRetiredFields(CURRENT,
        withUser("{\"id\": 1, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true}}}"));
    SchemaChanges.check(CURRENT, removed);
    assertThat(removed.nodeType("user").orElseThrow().fields().retired()).containsKey("age");

    Schema retyped = removed.with(SchemaJson.readNodeType("user", toTree("{\"id\": 1, \"fields\": {"
        + "\"name\": {\"type\": \"string\", \"required\": true}, \"age\": {\"type\": \"string\"}}}")), 6);
    assertThatThrownBy(() -> SchemaChanges.check(removed, SchemaChanges.carryRetiredFields(removed, retyped)))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.FIELD_TYPE_IMMUTABLE));

    Schema back = SchemaChanges.carryRetiredFields(removed, removed.with(SchemaJson.readNodeType("user", toTree(
        "{\"id\": 1, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true}, \"age\": {\"type\": \"integer\"}}}")), 6));
    assertThatCode(() -> SchemaChanges.check(removed, back)).doesNotThrowAnyException();
    assertThat(back.nodeType("user").orElseThrow().fields().retired()).as("back, no longer retired").isEmpty();
    assertThat(SchemaJson.parse(SchemaJson.write(removed).toString())).as("retired fields survive the document")
        .isEqualTo(removed);
  }

  @Test
  void anIdFieldsNodeType_cannotChange() {
    Schema withOwner = SchemaJson.parse("""
        {"version": 1, "nodeTypes": {"user": {"id": 1}, "pin": {"id": 2}, "board": {"id": 3,
          "fields": {"owner": {"type": "id", "nodeType": "user"}}}}}""");
    assertThatThrownBy(() -> SchemaChanges.check(withOwner, withOwner.with(SchemaJson.readNodeType("board",
            toTree("{\"id\": 3, \"fields\": {\"owner\": {\"type\": \"id\", \"nodeType\": \"pin\"}}}")), 2)))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.FIELD_TYPE_IMMUTABLE));
  }

  @Test
  void aChangedDefault_isRefusedUnlessPermitted() {
    Schema proposed = withUser("{\"id\": 1, \"fields\": {\"name\": {\"type\": \"string\", \"required\": true},"
        + " \"age\": {\"type\": \"integer\", \"default\": 18}}}");
    assertThatThrownBy(() -> SchemaChanges.check(CURRENT, proposed))
        .satisfies(refusal -> assertThat(SchemaRule.of(refusal)).contains(SchemaRule.DEFAULT_CHANGE_UNCONFIRMED));
    assertThatCode(() -> SchemaChanges.check(CURRENT, proposed, java.util.Set.of(SchemaChanges.Permit.CHANGE_DEFAULTS)))
        .doesNotThrowAnyException();
  }

  @Test
  void laxDefinitions_areMalformed() {
    for (String lax : java.util.List.of("{\"id\": 9, \"strict\": \"yes\"}",
        "{\"id\": 9, \"fields\": {\"f\": {\"type\": \"string\", \"required\": \"maybe\"}}}",
        "{\"id\": 9, \"from\": \"user\", \"to\": \"pin\"}",
        "{\"id\": 9, \"fields\": {\"f\": {\"type\": \"string\", \"colour\": \"red\"}}}")) {
      assertThatThrownBy(() -> SchemaJson.readNodeType("lax", toTree(lax))).as(lax)
          .isInstanceOfSatisfying(GraphException.class,
              invalid -> assertThat(invalid.code()).isEqualTo(GraphException.Code.INVALID_ARGUMENT));
    }
  }
}
