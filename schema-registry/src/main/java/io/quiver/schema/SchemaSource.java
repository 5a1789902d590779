package io.quiver.schema;

import io.quiver.core.zk.DocumentSource;

/**
 * Where the schema in force comes from ({@link DocumentSource}): the registry's watcher in a
 * server, a fixed schema in tools and tests. Callers take one snapshot per request and use it
 * throughout, so a request never mixes two versions.
 */
@FunctionalInterface
public interface SchemaSource extends DocumentSource<Schema> {
  static SchemaSource fixed(Schema schema) {
    return () -> schema;
  }
}
