package io.quiver.schema;

import io.quiver.core.GraphException;
import java.util.Map;
import java.util.Optional;

/**
 * The compatibility rules a schema change must keep ({@link SchemaChanges}) and the consistency
 * rules a schema must keep ({@link Schema}). A refusal is a {@link GraphException} — code
 * INCOMPATIBLE_CHANGE, or INVALID_ARGUMENT for a definition naming what does not exist — whose
 * {@code details.rule} names the rule, so callers and tests branch on the rule, never on the
 * message.
 */
public enum SchemaRule {
  /** A type keeps its id. */
  TYPE_ID_IMMUTABLE,
  /** A new type may not take an id another type has, and no two types share one. */
  TYPE_ID_NEVER_REUSED,
  /** Types are never removed. */
  TYPE_NEVER_REMOVED,
  /**
   * A field's type cannot change — nor an id field's node type, nor the type a removed field had
   * when it comes back.
   */
  FIELD_TYPE_IMMUTABLE,
  /** A strict type cannot lose a field: its stored nodes may hold it, and could no longer be patched. */
  FIELD_REMOVED_FROM_STRICT_TYPE,
  /**
   * A field's default changes only when the change says so: every stored node without the field
   * reads the new default from then on.
   */
  DEFAULT_CHANGE_UNCONFIRMED,
  /** A new required field, or one that becomes required, needs a default. */
  REQUIRED_FIELD_NEEDS_DEFAULT,
  /** An edge type's from and to cannot change. */
  EDGE_ENDS_IMMUTABLE,
  /** An edge type's inverse cannot change. */
  INVERSE_IMMUTABLE,
  /** Strictness cannot be turned on. */
  STRICTNESS_CANNOT_BE_TURNED_ON,
  /** An inverse pair names each other with endpoints reversed; a symmetric type runs between one node type. */
  INVERSE_PAIR_MISMATCH,
  /**
   * Every node type a definition names is defined. Breaking it makes a definition malformed
   * rather than incompatible: INVALID_ARGUMENT, still naming this rule.
   */
  UNDEFINED_NODE_TYPE(GraphException.Code.INVALID_ARGUMENT);

  private final GraphException.Code code;

  SchemaRule() {
    this(GraphException.Code.INCOMPATIBLE_CHANGE);
  }

  SchemaRule(GraphException.Code code) {
    this.code = code;
  }

  /** The refusal of a change that breaks this rule. */
  public GraphException refusal(String message) {
    return GraphException.of(code, message, Map.of("rule", name()));
  }

  /** The rule a failure names, if it is a schema refusal. */
  public static Optional<SchemaRule> of(Throwable failure) {
    if (failure instanceof GraphException graph && graph.details().get("rule") instanceof String rule) {
      try {
        return Optional.of(valueOf(rule));
      } catch (IllegalArgumentException notARule) {
        return Optional.empty();
      }
    }
    return Optional.empty();
  }
}
