package io.quiver.schema;

/** A schema document or a schema change that breaks a rule; the message names the rule. */
public final class SchemaException extends IllegalArgumentException {
  public SchemaException(String message) {
    super(message);
  }
}
