package io.quiver.api.server;

import io.quiver.api.config.QuiverConfig;
import io.quiver.api.http.RenderedJson;
import io.quiver.api.http.SlowClients;
import io.quiver.api.metrics.QuiverMetrics;
import io.quiver.fleet.AdminService;
import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import java.util.function.BooleanSupplier;

/**
 * What the HTTP layer is given: the graph operations (cached or not), the backend (bulk imports,
 * telemetry) and the fleet's admin service beside them, the schema, the configuration, ZooKeeper's health, and what every event
 * loop's server shares (the slow-client watch, the rendered JSON of cached values).
 */
record Services(QuiverConfig config, GraphStore store, GraphBackend backend, AdminService admin, SchemaSource schemas,
    QuiverMetrics metrics, BooleanSupplier zooKeeper, SlowClients slowClients, RenderedJson rendered) {
  boolean zooKeeperConnected() {
    return zooKeeper.getAsBoolean();
  }
}
