package io.quiver.schema;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeMap;

/**
 * The rules a change to the registry must keep, so that data written under any earlier version
 * stays readable under the new one without rewriting it. Each refusal names its rule.
 *
 * <ul>
 *   <li>Type ids are immutable and never reused: a type keeps its id, and a new type may not
 *       take an id another type has (types are never removed, so an id once used stays used).
 *   <li>A field's type cannot change, nor an id field's node type. A removed field is remembered
 *       with its type (the type's {@code retired} fields) and can only come back as it was: stored
 *       data may still hold values of the old type.
 *   <li>A strict type cannot lose a field: its stored nodes may hold it and could no longer be
 *       patched.
 *   <li>A new required field needs a default, and so does a field that becomes required: data
 *       stored before it has no value for it.
 *   <li>A field's default changes only when the change is {@link Permit#CHANGE_DEFAULTS
 *       permitted} explicitly: every stored node without a value reads the new default.
 *   <li>An edge type's from, to and inverse cannot change.
 *   <li>Strictness cannot be turned on: stored data may hold fields a strict type would refuse.
 *   <li>An inverse pair must name each other, with endpoints reversed (checked by {@link Schema}).
 *   <li>A unique index belongs to the registry ({@link #carryIndexes}): a change says only whether
 *       a field is unique. A field that keeps its index keeps its shard count and state whatever the
 *       change sends, and a new index starts {@link UniqueIndex#DECLARED}, for the registry to fix
 *       its shard count and build it; no change can turn an index active but its build.
 * </ul>
 */
public final class SchemaChanges {
  private SchemaChanges() {}

  /** What a change may do that the rules otherwise refuse, when its author says so. */
  public enum Permit {
    /** Change fields' defaults, and so what stored nodes without a value read. */
    CHANGE_DEFAULTS,
    /**
     * Leave a unique index declared on a type that has nodes {@code building}: the change answers
     * once it is published, and the unique repair's scan builds and activates the index, reporting
     * its progress (the command line's {@code schema apply} does that with a progress bar).
     */
    BUILD_INDEXES_LATER
  }

  /** Refuses {@code proposed} with an INCOMPATIBLE_CHANGE naming its {@link SchemaRule} if it breaks a rule against {@code current}. */
  public static void check(Schema current, Schema proposed) {
    check(current, proposed, Set.of());
  }

  /**
   * The proposed schema with every type remembering the fields it no longer has: those retired
   * before, and those this change removes. A field that comes back leaves the retired ones.
   */
  public static Schema carryRetiredFields(Schema current, Schema proposed) {
    Map<String, NodeType> nodeTypes = new TreeMap<>(proposed.nodeTypes());
    nodeTypes.replaceAll((name, type) -> current.nodeTypes().containsKey(name)
        ? type.withFields(carried(current.nodeTypes().get(name).fields(), type.fields())) : type);
    Map<String, EdgeType> edgeTypes = new TreeMap<>(proposed.edgeTypes());
    edgeTypes.replaceAll((name, type) -> current.edgeTypes().containsKey(name)
        ? type.withFields(carried(current.edgeTypes().get(name).fields(), type.fields())) : type);
    return new Schema(proposed.version(), nodeTypes, edgeTypes);
  }

  /**
   * The proposed schema with every unique index as the registry holds it: a field that keeps its
   * index keeps it as stored, and a new one is {@link UniqueIndex#DECLARED}, whatever the proposal
   * said of its shards or state.
   */
  public static Schema carryIndexes(Schema current, Schema proposed) {
    Map<String, NodeType> nodeTypes = new TreeMap<>(proposed.nodeTypes());
    nodeTypes.replaceAll((name, type) -> {
      NodeType before = current.nodeTypes().get(name);
      Map<String, FieldDef> definitions = new LinkedHashMap<>(type.fields().definitions());
      definitions.replaceAll((field, def) -> {
        if (def.unique() == null) {
          return def;
        }
        FieldDef stored = before == null ? null : before.fields().definitions().get(field);
        return def.withUnique(stored != null && stored.unique() != null ? stored.unique() : UniqueIndex.DECLARED);
      });
      return type.withFields(new Fields(definitions, type.fields().strict(), type.fields().retired()));
    });
    return new Schema(proposed.version(), nodeTypes, proposed.edgeTypes());
  }

  private static Fields carried(Fields before, Fields after) {
    Map<String, FieldDef> retired = new LinkedHashMap<>(before.retired());
    retired.putAll(after.retired());
    before.definitions().forEach((name, field) -> {
      if (!after.definitions().containsKey(name)) {
        retired.put(name, field);
      }
    });
    after.definitions().keySet().forEach(retired::remove);
    return after.withRetired(retired);
  }

  /** As {@link #check(Schema, Schema)}, allowing what {@code permits} names. */
  public static void check(Schema current, Schema proposed, Set<Permit> permits) {
    for (NodeType type : proposed.nodeTypes().values()) {
      NodeType before = current.nodeTypes().get(type.name());
      if (before == null) {
        current.nodeType(type.id()).ifPresent(taken -> refuse(SchemaRule.TYPE_ID_NEVER_REUSED, "type ids are never reused: node type id "
            + type.id() + " belongs to '" + taken.name() + "'"));
      } else {
        checkNodeType(before, type, permits);
      }
    }
    for (EdgeType type : proposed.edgeTypes().values()) {
      EdgeType before = current.edgeTypes().get(type.name());
      if (before == null) {
        current.edgeType(type.id()).ifPresent(taken -> refuse(SchemaRule.TYPE_ID_NEVER_REUSED, "type ids are never reused: edge type id "
            + type.id() + " belongs to '" + taken.name() + "'"));
        checkFields("edge type '" + type.name() + "'", Fields.NONE, type.fields(), permits);
      } else {
        checkEdgeType(before, type, permits);
      }
    }
    current.nodeTypes().keySet().stream().filter(name -> !proposed.nodeTypes().containsKey(name)).findFirst()
        .ifPresent(name -> refuse(SchemaRule.TYPE_NEVER_REMOVED, "types are never removed: node type '" + name + "' is missing"));
    current.edgeTypes().keySet().stream().filter(name -> !proposed.edgeTypes().containsKey(name)).findFirst()
        .ifPresent(name -> refuse(SchemaRule.TYPE_NEVER_REMOVED, "types are never removed: edge type '" + name + "' is missing"));
  }

  private static void checkNodeType(NodeType before, NodeType after, Set<Permit> permits) {
    String what = "node type '" + after.name() + "'";
    if (before.id() != after.id()) {
      refuse(SchemaRule.TYPE_ID_IMMUTABLE, "type ids are immutable: " + what + " has id " + before.id() + ", not " + after.id());
    }
    if (!before.strict() && after.strict()) {
      refuse(SchemaRule.STRICTNESS_CANNOT_BE_TURNED_ON, "strictness cannot be turned on: " + what + " is open, and stored data may hold any field");
    }
    checkFields(what, before.fields(), after.fields(), permits);
  }

  private static void checkEdgeType(EdgeType before, EdgeType after, Set<Permit> permits) {
    String what = "edge type '" + after.name() + "'";
    if (before.id() != after.id()) {
      refuse(SchemaRule.TYPE_ID_IMMUTABLE, "type ids are immutable: " + what + " has id " + before.id() + ", not " + after.id());
    }
    if (!before.from().equals(after.from()) || !before.to().equals(after.to())) {
      refuse(SchemaRule.EDGE_ENDS_IMMUTABLE, "an edge type's ends cannot change: " + what + " runs from " + before.from() + " to " + before.to());
    }
    if (!Objects.equals(before.inverse(), after.inverse())) {
      refuse(SchemaRule.INVERSE_IMMUTABLE, "an edge type's inverse cannot change: " + what + " has inverse '" + before.inverse() + "'");
    }
    checkFields(what, before.fields(), after.fields(), permits);
  }

  private static void checkFields(String what, Fields before, Fields after, Set<Permit> permits) {
    for (Map.Entry<String, FieldDef> entry : after.definitions().entrySet()) {
      String name = entry.getKey();
      FieldDef field = entry.getValue();
      FieldDef old = before.definitions().get(name);
      FieldDef retired = before.retired().get(name);
      if (old != null) {
        requireSameType(what, name, old, field, "is");
        if (!Objects.equals(old.defaultValue(), field.defaultValue()) && !permits.contains(Permit.CHANGE_DEFAULTS)) {
          refuse(SchemaRule.DEFAULT_CHANGE_UNCONFIRMED, "changing a default changes what every stored node"
              + " without a value reads: " + what + " field '" + name + "' goes from " + old.defaultValue() + " to "
              + field.defaultValue() + "; confirm it with changeDefaults=true");
        }
      } else if (retired != null) {
        requireSameType(what, name, retired, field, "was removed as");
      }
      boolean newlyRequired = field.required() && (old == null || !old.required());
      if (newlyRequired && !field.hasDefault()) {
        refuse(SchemaRule.REQUIRED_FIELD_NEEDS_DEFAULT, "a new required field needs a default: " + what + " field '"
            + name + "'");
      }
    }
    if (after.strict()) {
      before.definitions().keySet().stream().filter(name -> !after.definitions().containsKey(name)).findFirst()
          .ifPresent(name -> refuse(SchemaRule.FIELD_REMOVED_FROM_STRICT_TYPE, "a strict type cannot lose a field: "
              + what + " field '" + name + "' may be held by stored nodes, which could then no longer be patched"));
    }
  }

  /** A field keeps its type, and an id field its node type. */
  private static void requireSameType(String what, String name, FieldDef old, FieldDef field, String was) {
    if (old.type() != field.type()) {
      refuse(SchemaRule.FIELD_TYPE_IMMUTABLE, "a field's type cannot change: " + what + " field '" + name + "' "
          + was + " " + old.type().jsonName() + ", not " + field.type().jsonName());
    }
    if (!Objects.equals(old.nodeType(), field.nodeType())) {
      refuse(SchemaRule.FIELD_TYPE_IMMUTABLE, "an id field's node type cannot change: " + what + " field '" + name
          + "' " + was + " an ID of " + old.nodeType() + ", not of " + field.nodeType());
    }
  }

  private static void refuse(SchemaRule rule, String message) {
    throw rule.refusal(message);
  }
}
