package io.quiver.store.internal.outbox;

import io.quiver.core.GraphException;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.InverseMarksTable;
import io.quiver.store.internal.table.TailPositionsTable;
import io.quiver.store.shard.GtidPosition;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;

/**
 * Waits until a host's tailer has read and committed past everything the host had committed when
 * asked — so every inverse a forward copy committed before then asked for is written, or in an
 * outbox ({@link ChangeTailer}). What the repair asks, when the change log is written from the
 * binary log, before it calls a pair damaged: a forward copy whose inverse no outbox entry holds
 * may still be on its way through the tail.
 *
 * <p>It commits a transaction that moves one of the host's inverse marks (nothing else): a tailer
 * commits its position past every transaction that changed a row it reads, even one with no
 * change to log, where it would keep a position moved only by others (the drainer's deletions)
 * for up to a minute. Then it reads the host's binary-log position and waits, every
 * {@value #POLL_MS} ms, until the tailer's committed position covers it ({@link GtidPosition#covers}),
 * for at most {@value #BOUND_MS} ms — UNAVAILABLE after, since no tailer is catching up.
 */
public final class TailBarrier {
  static final long POLL_MS = 20;
  static final long BOUND_MS = 10_000;

  private final Vertx vertx;
  private final ShardRouter router;
  private final ShardClient client;
  private final Clock clock;

  public TailBarrier(Vertx vertx, ShardRouter router, ShardClient client, Clock clock) {
    this.vertx = vertx;
    this.router = router;
    this.client = client;
    this.clock = clock;
  }

  /** Succeeds once {@code host}'s tailer has committed past everything the host committed before the call. */
  public Future<Void> passed(String host) {
    ShardRoute route = ChangeTailer.onHost(router, host);
    if (route == null) {
      return Future.failedFuture(GraphException.unavailable("host " + host + " holds no readable shard"));
    }
    long deadline = clock.millis() + BOUND_MS;
    return client.inTransaction(route, connection -> InverseMarksTable.INSTANCE.mark(connection, route))
        .compose(marked -> client.read(route, TailPositionsTable.INSTANCE::now))
        .compose(now -> covered(route, host, GtidPosition.parse(now), deadline));
  }

  private Future<Void> covered(ShardRoute route, String host, GtidPosition wanted, long deadline) {
    return client.read(route, sql -> TailPositionsTable.INSTANCE.read(sql, host)).compose(kept -> {
      if (kept != null && GtidPosition.parse(kept).covers(wanted)) {
        return Future.succeededFuture();
      }
      if (clock.millis() >= deadline) {
        return Future.failedFuture(GraphException.unavailable("the change-log tailer of host " + host
            + " has not reached " + wanted + " within " + BOUND_MS + " ms (it is at " + kept + "): is a server"
            + " draining the host?"));
      }
      return vertx.timer(POLL_MS).compose(fired -> covered(route, host, wanted, deadline));
    });
  }
}
