package io.quiver.fleet.internal;

import io.quiver.core.GraphException;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphStore;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardMapSource;
import io.quiver.store.shard.ShardMapStore;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every change to the shard map, an operator's or a shard move's, goes through here: checked
 * against the stored version, its new hosts reached and its new shards provisioned before it is
 * published one version up (compare-and-set), then answered once this process routes by it. The
 * one writer of the map document; the admin service and the mover both hold it, so a move changes
 * the map exactly as an operator does, and nothing below calls back up.
 *
 * <p>Blocking (ZooKeeper, JDBC): admin threads only.
 */
public final class MapChanges {
  private static final Logger log = LoggerFactory.getLogger(MapChanges.class);

  private final ShardMapStore store;
  private final ShardMapSource served;
  private final SchemaSource schemas;
  private final ShardProvisioner provisioner;
  private final Duration servedWithin;

  MapChanges(ShardMapStore store, ShardMapSource served, SchemaSource schemas, ShardProvisioner provisioner,
      Duration servedWithin) {
    this.store = store;
    this.served = served;
    this.schemas = schemas;
    this.provisioner = provisioner;
    this.servedWithin = servedWithin;
  }

  /** The map as ZooKeeper holds it now; NOT_FOUND when none was ever published. */
  public ShardMap stored() throws Exception {
    return store.read().orElseThrow(() -> GraphException.notFound("no shard map at " + store.path()));
  }

  /** The schema this process serves: what a move provisions its target with. */
  public Schema schema() {
    return schemas.current();
  }

  /** {@link #change(ShardMapChange, long)} over whatever version is stored. */
  public ShardMap change(ShardMapChange change) throws Exception {
    return change(change, GraphStore.ANY_VERSION);
  }

  /** Checks, provisions, publishes one version up and waits until this process routes by it. */
  public ShardMap change(ShardMapChange change, long expectedVersion) throws Exception {
    ShardMap stored = stored();
    if (expectedVersion != GraphStore.ANY_VERSION && expectedVersion != stored.version()) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT, "the shard map is at version " + stored.version()
          + ", not " + expectedVersion + "; read it again before changing it");
    }
    ShardMap next = change.applyTo(stored).withVersion(stored.version() + 1);
    // A map never names a host it cannot reach: every host it gains (or readdresses) answers first.
    for (Host host : next.hosts().values()) {
      if (!host.equals(stored.hosts().get(host.name()))) {
        provisioner.reach(host);
      }
    }
    if (change.createsShards()) {
      provisioner.provision(next, schemas.current());
    }
    store.publish(next);
    log.info("shard map version {}: {}", next.version(), change.describe());
    return served.awaitVersion(next.version(), servedWithin);
  }
}
