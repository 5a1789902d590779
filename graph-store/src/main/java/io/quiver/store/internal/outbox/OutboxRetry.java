package io.quiver.store.internal.outbox;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.OutboxTable;
import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;
import java.time.Clock;
import java.util.List;
import java.util.function.IntConsumer;

/**
 * Parked entries tried again, once an operator has fixed what made them fail (a type defined, a
 * host repaired): every parked entry of a host's shards is due now with its attempts counted
 * afresh, and this process's drainer, if it drains the shard, passes at once. An entry that fails
 * again {@code maxAttempts} times is parked again, with its new error. Reactive: shard after shard.
 */
public final class OutboxRetry {
  private final ShardRouter router;
  private final ShardClient client;
  private final Clock clock;
  private final IntConsumer written;

  /** @param written told of every shard whose entries were set to retry, so its drainer passes now */
  public OutboxRetry(ShardRouter router, ShardClient client, Clock clock, IntConsumer written) {
    this.router = router;
    this.client = client;
    this.clock = clock;
    this.written = written;
  }

  /** Retries the parked entries on {@code host}'s shards, or every host's when null; answers how many. */
  public Future<Long> run(String host) {
    return Futures.attempt(() -> {
      ShardMap map = router.shardMap();
      if (host != null && !map.hosts().containsKey(host)) {
        throw GraphException.invalid("host '" + host + "' is not in the shard map; it has " + map.hosts().keySet());
      }
      return host == null ? map.allShards() : map.shardsOn(host);
    }).compose(shards -> {
      long[] retried = {0};
      return Futures.forEach(shards, shard -> Futures.started(() -> {
        ShardRoute route = router.route(shard, Access.WRITE);
        return client.write(route, sql -> OutboxTable.INSTANCE.unpark(sql, route, SqlValues.nowMicros(clock)));
      }).onSuccess(unparked -> {
        if (unparked > 0) {
          retried[0] += unparked;
          written.accept(shard);
        }
      })).map(all -> retried[0]);
    });
  }
}
