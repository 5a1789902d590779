package io.quiver.server;

import io.quiver.config.QuiverConfig;
import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphStore;
import java.util.function.BooleanSupplier;

/** What the HTTP layer is given: the store, the schema, the configuration, and ZooKeeper's health. */
record Services(QuiverConfig config, GraphStore store, SchemaSource schemas, BooleanSupplier zooKeeper) {
  boolean zooKeeperConnected() {
    return zooKeeper.getAsBoolean();
  }
}
