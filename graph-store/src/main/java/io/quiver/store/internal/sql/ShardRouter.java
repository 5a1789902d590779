package io.quiver.store.internal.sql;

import io.quiver.core.GraphException;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardState;
import io.vertx.sqlclient.Pool;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.random.RandomGenerator;

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
    return route(topology.get(), shard, access);
  }

  /**
   * The route for a new node: a random open, writable shard whose host accepts new nodes
   * ({@link HostHealth#acceptsNewNodes}: it answers and its commits do not stall); if no host
   * does, any open writable shard, whose route then says why it fails. Picked and routed by one
   * map: a map swapped in between (shards turned read-only for a move, say) would otherwise
   * refuse the shard the older one picked.
   *
   * @throws GraphException UNAVAILABLE when no open shard is writable
   */
  public ShardRoute routeNewNode(RandomGenerator random) {
    Topology current = topology.get();
    ShardMap map = current.map();
    int shard = map.pickShardForNewNode(random,
            candidate -> map.rangeOf(candidate).map(range -> health.acceptsNewNodes(range.host())).orElse(false))
        .or(() -> map.pickShardForNewNode(random))
        .orElseThrow(() -> GraphException.unavailable("no open shard accepts new nodes"));
    return route(current, shard, Access.WRITE);
  }

  private ShardRoute route(Topology current, int shard, Access access) {
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

  /** Every host's pool, for health checks. */
  public Map<String, Pool> pools() {
    return topology.get().pools();
  }
}
