package io.quiver.server;

import io.quiver.config.QuiverConfig;
import io.quiver.metrics.QuiverMetrics;
import io.quiver.schema.SchemaRegistry;
import io.quiver.schema.SchemaWatcher;
import io.quiver.store.GraphStore;
import java.util.function.BooleanSupplier;

/** What the HTTP layer is given: the store, the schema and its registry, the configuration, and ZooKeeper's health. */
record Services(QuiverConfig config, GraphStore store, SchemaWatcher schemas, SchemaRegistry registry,
    QuiverMetrics metrics, BooleanSupplier zooKeeper) {
  boolean zooKeeperConnected() {
    return zooKeeper.getAsBoolean();
  }
}
