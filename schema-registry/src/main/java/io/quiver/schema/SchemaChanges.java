package io.quiver.schema;

import java.util.Map;

/**
 * The rules a change to the registry must keep, so that data written under any earlier version
 * stays readable under the new one without rewriting it. Each refusal names its rule.
 *
 * <ul>
 *   <li>Type ids are immutable and never reused: a type keeps its id, and a new type may not
 *       take an id another type has (types are never removed, so an id once used stays used).
 *   <li>A field's type cannot change.
 *   <li>A new required field needs a default, and so does a field that becomes required: data
 *       stored before it has no value for it.
 *   <li>An edge type's from, to and inverse cannot change.
 *   <li>Strictness cannot be turned on: stored data may hold fields a strict type would refuse.
 *   <li>An inverse pair must name each other, with endpoints reversed (checked by {@link Schema}).
 * </ul>
 */
public final class SchemaChanges {
  private SchemaChanges() {}

  /** Refuses {@code proposed} with an INCOMPATIBLE_CHANGE naming its {@link SchemaRule} if it breaks a rule against {@code current}. */
  public static void check(Schema current, Schema proposed) {
    for (NodeType type : proposed.nodeTypes().values()) {
      NodeType before = current.nodeTypes().get(type.name());
      if (before == null) {
        current.nodeType(type.id()).ifPresent(taken -> refuse(SchemaRule.TYPE_ID_NEVER_REUSED, "type ids are never reused: node type id "
            + type.id() + " belongs to '" + taken.name() + "'"));
      } else {
        checkNodeType(before, type);
      }
    }
    for (EdgeType type : proposed.edgeTypes().values()) {
      EdgeType before = current.edgeTypes().get(type.name());
      if (before == null) {
        current.edgeType(type.id()).ifPresent(taken -> refuse(SchemaRule.TYPE_ID_NEVER_REUSED, "type ids are never reused: edge type id "
            + type.id() + " belongs to '" + taken.name() + "'"));
        checkFields("edge type '" + type.name() + "'", Fields.NONE, type.fields());
      } else {
        checkEdgeType(before, type);
      }
    }
    current.nodeTypes().keySet().stream().filter(name -> !proposed.nodeTypes().containsKey(name)).findFirst()
        .ifPresent(name -> refuse(SchemaRule.TYPE_NEVER_REMOVED, "types are never removed: node type '" + name + "' is missing"));
    current.edgeTypes().keySet().stream().filter(name -> !proposed.edgeTypes().containsKey(name)).findFirst()
        .ifPresent(name -> refuse(SchemaRule.TYPE_NEVER_REMOVED, "types are never removed: edge type '" + name + "' is missing"));
  }

  private static void checkNodeType(NodeType before, NodeType after) {
    String what = "node type '" + after.name() + "'";
    if (before.id() != after.id()) {
      refuse(SchemaRule.TYPE_ID_IMMUTABLE, "type ids are immutable: " + what + " has id " + before.id() + ", not " + after.id());
    }
    if (!before.strict() && after.strict()) {
      refuse(SchemaRule.STRICTNESS_CANNOT_BE_TURNED_ON, "strictness cannot be turned on: " + what + " is open, and stored data may hold any field");
    }
    checkFields(what, before.fields(), after.fields());
  }

  private static void checkEdgeType(EdgeType before, EdgeType after) {
    String what = "edge type '" + after.name() + "'";
    if (before.id() != after.id()) {
      refuse(SchemaRule.TYPE_ID_IMMUTABLE, "type ids are immutable: " + what + " has id " + before.id() + ", not " + after.id());
    }
    if (!before.from().equals(after.from()) || !before.to().equals(after.to())) {
      refuse(SchemaRule.EDGE_ENDS_IMMUTABLE, "an edge type's ends cannot change: " + what + " runs from " + before.from() + " to " + before.to());
    }
    if (!java.util.Objects.equals(before.inverse(), after.inverse())) {
      refuse(SchemaRule.INVERSE_IMMUTABLE, "an edge type's inverse cannot change: " + what + " has inverse '" + before.inverse() + "'");
    }
    checkFields(what, before.fields(), after.fields());
  }

  private static void checkFields(String what, Fields before, Fields after) {
    for (Map.Entry<String, FieldDef> entry : after.definitions().entrySet()) {
      String name = entry.getKey();
      FieldDef field = entry.getValue();
      FieldDef old = before.definitions().get(name);
      if (old != null && old.type() != field.type()) {
        refuse(SchemaRule.FIELD_TYPE_IMMUTABLE, "a field's type cannot change: " + what + " field '" + name + "' is " + old.type().jsonName()
            + ", not " + field.type().jsonName());
      }
      boolean newlyRequired = field.required() && (old == null || !old.required());
      if (newlyRequired && !field.hasDefault()) {
        refuse(SchemaRule.REQUIRED_FIELD_NEEDS_DEFAULT, "a new required field needs a default: " + what + " field '" + name + "'");
      }
    }
  }

  private static void refuse(SchemaRule rule, String message) {
    throw rule.refusal(message);
  }
}
