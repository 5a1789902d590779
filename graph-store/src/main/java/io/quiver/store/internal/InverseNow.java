package io.quiver.store.internal;

import io.quiver.core.GraphException;
import io.quiver.store.EdgeResult;
import io.quiver.store.internal.outbox.InverseOp;
import io.quiver.store.internal.outbox.OutboxOp;
import io.quiver.store.internal.outbox.InverseWriter;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;

/**
 * Applies a just-written outbox entry at once, for a request that waits to read its own inverse
 * ({@code waitForInverse}). Request work, so it runs on the request pools: the background pools
 * belong to the drainer. If the entry cannot be applied now, it stays for the drainer. Every
 * statement goes through {@link ShardClient}, so a host that hangs costs the wait its statement
 * deadline, not the request's whole timeout.
 */
final class InverseNow {
  private final ShardRouter router;
  private final ShardClient client;
  private final InverseWriter writer;

  InverseNow(ShardRouter router, ShardClient client, InverseWriter writer) {
    this.router = router;
    this.client = client;
    this.writer = writer;
  }

  /**
   * Where the inverse stands after trying: {@code APPLIED} (by this call, or already by the
   * drainer), {@code REMOVED} (its node is gone, so the edge was removed from both copies), or
   * {@code PENDING} (left for the drainer).
   */
  Future<EdgeResult.Inverse> apply(EdgeWrite.PendingInverse pending) {
    ShardRoute route;
    try {
      route = router.route(pending.shard(), Access.WRITE);
    } catch (GraphException readOnlyOrOffline) {
      return Future.succeededFuture(EdgeResult.Inverse.PENDING);
    }
    return client.read(route, sql -> OutboxTable.INSTANCE.get(sql, route, pending.entryId()))
        .compose(entry -> entry == null || entry.columns().kind() != OutboxOp.Kind.INVERSE_EDGE.code()
            // Gone: applied (by the drainer, or a reader). Not an inverse's: nothing of a write's to apply here.
            ? Future.succeededFuture(EdgeResult.Inverse.APPLIED)
            : writer.apply(InverseOp.of(entry.columns()))
                .compose(outcome -> client.write(route, sql -> OutboxTable.INSTANCE.delete(sql, route, entry.id()))
                    .map(outcome == InverseWriter.Outcome.REMOVED ? EdgeResult.Inverse.REMOVED
                        : EdgeResult.Inverse.APPLIED)))
        .otherwise(EdgeResult.Inverse.PENDING);
  }
}
