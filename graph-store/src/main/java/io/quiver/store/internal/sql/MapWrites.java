package io.quiver.store.internal.sql;

import io.quiver.core.GraphException;
import io.quiver.core.zk.VersionFence;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardRange;
import io.vertx.core.Future;
import java.util.List;
import java.util.Map;
import java.util.function.LongConsumer;
import java.util.function.Supplier;

/**
 * The shard-map versions that writes in flight began under ({@link VersionFence}, the one fence
 * the schema's versions use too), so that this process acknowledges a version
 * ({@link io.quiver.core.zk.ServedVersions}) only once no write begun under an older one can
 * still commit. A shard move's cut-over relies on it: it turns the moving shards read-only,
 * waits until every server has acknowledged that version, and only then takes the source's last
 * position — so no write can commit on the old host after the copy has caught up with it. Vitess
 * fences a cut-over the same way, waiting for every tablet to refuse writes before it switches.
 *
 * <p>The count spans one attempt of a transaction (or one statement) from the moment it starts on
 * its connection to the moment the database has answered — not the caller's deadline, which can
 * answer first: a COMMIT still in flight keeps the fence closed. A transaction whose connection is
 * lost (its host died, or its session was killed) counts until its deadline has passed: the SQL
 * client never answers some of what was sent on a lost connection, and a count kept for good would
 * keep this server from acknowledging any later version ({@link ShardClient}). A write registers
 * under the current version, then checks that the current map still lets its route write there
 * (the shard writable, on the same host); if not it lets go and is refused UNAVAILABLE, which the
 * HTTP layer answers 503 with {@code Retry-After}. So an acknowledgement computed after a swap can
 * never miss a write that goes on under the version before it.
 *
 * <p>Every write through {@link ShardClient} on a route taken for writing is counted — a
 * transaction, and a statement outside one ({@link ShardClient#write}), the outbox drainer's own
 * bookkeeping included (deleting handled entries, rescheduling, collecting tombstones: it takes
 * its routes for writing and skips read-only shards).
 */
public final class MapWrites {
  /**
   * The detail a refusal names its shard by ({@code {"shard": 21}} in the 503's details): a refusal
   * is sent before anything of the write is, which is how a caller tells it from a host's trouble
   * ({@link #refused}).
   */
  private static final String REFUSED_SHARD = "shard";

  private final VersionFence<ShardMap> fence;

  /**
   * @param current the map routes are taken from now
   * @param acknowledge told the newest version no older write is in flight under, whenever it may have moved
   */
  public MapWrites(Supplier<ShardMap> current, LongConsumer acknowledge) {
    this.fence = new VersionFence<>(current, ShardMap::version, acknowledge);
  }

  /**
   * Runs one write on {@code route}, counted in flight until the database has answered; refused
   * UNAVAILABLE without running when the map no longer lets the route write.
   */
  <T> Future<T> write(ShardRoute route, Supplier<Future<T>> work) {
    return write(List.of(route), work);
  }

  /**
   * {@link #write(ShardRoute, Supplier)} for one transaction that writes several shards of one host
   * (a {@link GroupCommit group}): counted once, refused unless the map lets every route write.
   */
  <T> Future<T> write(List<ShardRoute> routes, Supplier<Future<T>> work) {
    return fence.write(map -> {
      for (ShardRoute route : routes) {
        String refusal = refusal(map, route);
        if (refusal != null) {
          return Future.failedFuture(GraphException.of(GraphException.Code.UNAVAILABLE, refusal,
              Map.of(REFUSED_SHARD, route.shard())));
        }
      }
      return work.get();
    });
  }

  /**
   * Whether {@code failure} is this fence's refusal: the map no longer let one of the write's
   * shards write, and nothing of the write was sent.
   */
  static boolean refused(Throwable failure) {
    return failure instanceof GraphException graph && graph.code() == GraphException.Code.UNAVAILABLE
        && graph.details().containsKey(REFUSED_SHARD);
  }

  /** Why the map no longer lets {@code route} write, or null when it does. */
  private static String refusal(ShardMap map, ShardRoute route) {
    ShardRange range = map.rangeOf(route.shard()).orElse(null);
    if (range == null || !range.host().equals(route.host())) {
      return "shard " + route.shard() + " has moved" + (range == null ? "" : " to " + range.host()) + "; try again";
    }
    if (!map.stateOf(route.shard()).writable()) {
      return "shard " + route.shard() + " is " + map.stateOf(route.shard()).jsonName();
    }
    return null;
  }

  /** Acknowledges the current version, or the oldest one a write is still in flight under. */
  public void evaluate() {
    fence.evaluate();
  }
}
