package io.quiver.schema;

/**
 * Where the schema in force comes from. Callers take one snapshot per request and use it
 * throughout, so a request never mixes two versions.
 */
@FunctionalInterface
public interface SchemaSource {
  Schema current();

  /**
   * Waits until the source serves {@code version} or a newer one, so a caller can read its own
   * change; a fixed source answers at once. Blocking: never call it on an event loop.
   */
  default Schema awaitVersion(long version, java.time.Duration timeout)
      throws InterruptedException, java.util.concurrent.TimeoutException {
    return current();
  }

  /** Calls {@code listener} with every newer version; a fixed source never changes. */
  default void onChange(java.util.function.Consumer<Schema> listener) {
  }

  static SchemaSource fixed(Schema schema) {
    return () -> schema;
  }
}
