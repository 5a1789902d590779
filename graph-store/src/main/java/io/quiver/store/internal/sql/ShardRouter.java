package io.quiver.store.internal.sql;

import io.quiver.core.GraphException;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardState;
import io.vertx.sqlclient.Pool;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;

/**
 * Routes a shard to its host's pool through one immutable snapshot of the shard map and the
 * pools built for it. A new map is swapped in atomically; a request that already took a route
 * finishes on the old one. A shard whose host does not answer its probe ({@link HostHealth}) is
 * refused at once, naming the host, rather than left to wait for it — unless the request is a read
 * that tolerates bounded staleness and one of the host's replicas is within the bound
 * ({@link ReplicaLag}): it then goes to that replica. Such a read to a primary that answers carries
 * the replica as its {@link ShardRoute.Hedge}.
 */
public final class ShardRouter {
  private record Topology(ShardMap map, Map<String, Pool> pools) {}

  private final HostPools hostPools;
  private final HostHealth health;
  private final ReplicaLag replicas;
  private final AtomicReference<Topology> topology = new AtomicReference<>();

  /** A router that sends every read to the primary (background work's). */
  public ShardRouter(HostPools hostPools, HostHealth health, ShardMap initial) {
    this(hostPools, health, null, initial);
  }

  /** @param replicas where stale-tolerant reads may go instead; null: to the primary, as every read */
  public ShardRouter(HostPools hostPools, HostHealth health, ReplicaLag replicas, ShardMap initial) {
    this.hostPools = hostPools;
    this.health = health;
    this.replicas = replicas;
    apply(initial);
  }

  /** Swaps in a newer shard map; an older or equal version is ignored. */
  public synchronized void apply(ShardMap map) {
    Topology current = topology.get();
    if (current != null && map.version() <= current.map().version()) {
      return;
    }
    topology.set(new Topology(map, hostPools.apply(map)));
  }

  /** The shard map in force now. */
  public ShardMap shardMap() {
    return topology.get().map();
  }

  /**
   * The route to a shard for the given access.
   *
   * @throws GraphException INVALID_ARGUMENT when the shard is not in the map (no ID this
   *     cluster issued can point there); UNAVAILABLE when the shard is offline, or read-only
   *     and the access is a write, or its host is down (and, for a stale-tolerant read, none of
   *     its replicas is within the lag bound)
   */
  public ShardRoute route(int shard, Access access) {
    Topology current = topology.get();
    ShardRange range = current.map().rangeOf(shard)
        .orElseThrow(() -> GraphException.invalid("shard " + shard + " is not in the shard map"));
    ShardState state = current.map().stateOf(shard);
    if (!state.readable()) {
      throw GraphException.unavailable("shard " + shard + " is offline");
    }
    if (access == Access.WRITE && !state.writable()) {
      throw GraphException.unavailable("shard " + shard + " is read-only");
    }
    String down = health.down(range.host());
    ReplicaLag.Fresh replica = access == Access.STALE_READ && replicas != null ? replicas.freshest(range.host()) : null;
    if (down != null) {
      if (replica != null) {
        return new ShardRoute(shard, range.host(), replica.pool(), false, replica.address(), null);
      }
      throw GraphException.unavailable("host " + range.host() + " of shard " + shard + " is down: " + down
          + (access == Access.STALE_READ && replicas != null ? "; none of its replicas is within the lag bound" : ""));
    }
    Pool primary = current.pools().get(range.host());
    if (replica == null) {
      return new ShardRoute(shard, range.host(), primary, access == Access.WRITE);
    }
    return new ShardRoute(shard, range.host(), primary, false, null,
        new ShardRoute.Hedge(replica.address(), replica.pool(), replicas.hedgeAfterMillis()));
  }

  /**
   * Whether a new node may be placed on {@code shard}: its host answers and its commits do not
   * stall ({@link HostHealth#acceptsNewNodes}). Node creation steers away from one that does not.
   */
  public boolean acceptsNewNodes(int shard) {
    return topology.get().map().rangeOf(shard).map(range -> health.acceptsNewNodes(range.host())).orElse(false);
  }

  /** Every host's pool, for health checks. */
  public Map<String, Pool> pools() {
    return topology.get().pools();
  }
}
