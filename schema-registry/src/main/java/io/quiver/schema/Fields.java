package io.quiver.schema;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.core.GraphException;
import java.util.ArrayList;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The fields of a node or edge type, and the two things done with them: validating written
 * data and supplying defaults on read.
 *
 * @param definitions field name to definition, in declaration order
 * @param strict whether fields not defined here are refused (open types keep them)
 * @param retired fields this type once had and no longer has, as they were: stored data may still
 *     hold them, so one can only come back as it was ({@link SchemaChanges})
 */
public record Fields(Map<String, FieldDef> definitions, boolean strict, Map<String, FieldDef> retired) {

  public static final Fields NONE = new Fields(Map.of(), false);

  public Fields(Map<String, FieldDef> definitions, boolean strict) {
    this(definitions, strict, Map.of());
  }

  public Fields {
    for (String name : definitions.keySet()) {
      if (name == null || name.isEmpty()) {
        throw GraphException.invalid("a field name must not be empty");
      }
    }
    definitions = Collections.unmodifiableMap(new LinkedHashMap<>(definitions));
    retired = Collections.unmodifiableMap(new LinkedHashMap<>(retired));
  }

  /** These fields, remembering {@code retired} as the fields once removed. */
  public Fields withRetired(Map<String, FieldDef> retired) {
    return new Fields(definitions, strict, retired);
  }

  /**
   * Every way {@code data} fails these fields, each named by its path under {@code prefix}.
   * JSON null counts as absent: after a merge patch a null has removed the field.
   */
  public List<Violation> validate(ObjectNode data, String prefix, IdTypes ids) {
    List<Violation> violations = new ArrayList<>();
    for (Map.Entry<String, FieldDef> entry : definitions.entrySet()) {
      String path = prefix + "." + entry.getKey();
      FieldDef field = entry.getValue();
      JsonNode value = data.get(entry.getKey());
      if (value == null || value.isNull()) {
        if (field.required() && !field.hasDefault()) {
          violations.add(new Violation(path, "is required"));
        }
      } else if (!field.type().accepts(value)) {
        violations.add(new Violation(path, "must be " + article(field.type())));
      } else if (field.unique() != null && value.isTextual() && hasControlCharacter(value.textValue())) {
        // A lookup names its value in a URL, where control characters are refused: held, it could never be found.
        violations.add(new Violation(path, "is unique, and a unique value may not hold a control character"
            + " (no lookup could name it)"));
      } else if (field.nodeType() != null) {
        int expected = ids.typeIdOf(field.nodeType());
        if (ids.typeOfId(Ids.parse(value)) != expected) {
          violations.add(new Violation(path, "must be the ID of a " + field.nodeType()));
        }
      }
    }
    if (strict) {
      for (Iterator<String> names = data.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!definitions.containsKey(name)) {
          violations.add(new Violation(prefix + "." + name, "is not a field of this type"));
        }
      }
    }
    return violations;
  }

  private static boolean hasControlCharacter(String text) {
    return text.chars().anyMatch(Character::isISOControl);
  }

  /** A copy of the stored data with every absent field that has a default filled in. */
  public ObjectNode withDefaults(ObjectNode stored) {
    ObjectNode result = stored.deepCopy();
    for (Map.Entry<String, FieldDef> entry : definitions.entrySet()) {
      JsonNode present = result.get(entry.getKey());
      if ((present == null || present.isNull()) && entry.getValue().hasDefault()) {
        result.set(entry.getKey(), entry.getValue().defaultValue().deepCopy());
      }
    }
    return result;
  }

  private static String article(FieldType type) {
    return switch (type) {
      case INTEGER, OBJECT, ARRAY, ID -> "an " + type.jsonName();
      default -> "a " + type.jsonName();
    };
  }

  /**
   * What validation needs to know about IDs without depending on their bit layout, which the
   * graph store owns.
   */
  public interface IdTypes {
    /** The type id of the named node type. */
    int typeIdOf(String nodeType);

    /** The type id encoded in a node ID; called only with non-negative IDs. */
    int typeOfId(long id);
  }
}
