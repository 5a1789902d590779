package io.quiver.schema;

/**
 * Where the schema in force comes from. Callers take one snapshot per request and use it
 * throughout, so a request never mixes two versions.
 */
@FunctionalInterface
public interface SchemaSource {
  Schema current();

  static SchemaSource fixed(Schema schema) {
    return () -> schema;
  }
}
