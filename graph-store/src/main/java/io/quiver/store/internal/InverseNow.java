package io.quiver.store.internal;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.SchemaSource;
import io.quiver.store.EdgeResult;
import io.quiver.store.NodeId;
import io.quiver.store.internal.outbox.InverseOp;
import io.quiver.store.internal.outbox.OutboxOp;
import io.quiver.store.internal.outbox.InverseWriter;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;

/**
 * Writes a write's inverse copy at once, for a request that waits to read it: a write that waits
 * for its inverse ({@code waitForInverse}), a read carrying a token, a multi-read that found a pair
 * half-written. Request work, so it runs on the request pools: the background pools belong to the
 * drainer and the tailer. What cannot be applied now is left where it waits (the outbox entry, or
 * the forward copy's transaction in the binary log, for the tailer). Every statement goes through
 * {@link ShardClient}, so a host that hangs costs the wait its statement deadline, not the
 * request's whole timeout. Everything here is idempotent, as the writer is: applying what the
 * drainer or the tailer also applies writes one copy.
 */
final class InverseNow {
  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final InverseWriter writer;

  InverseNow(ShardRouter router, ShardClient client, SchemaSource schemas, InverseWriter writer) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.writer = writer;
  }

  /**
   * Where a write's inverse stands after trying: {@code APPLIED} (by this call, or already by the
   * drainer), {@code REMOVED} (its node is gone, so the edge was removed from both copies), or
   * {@code PENDING} (left for the drainer or the tailer).
   */
  Future<EdgeResult.Inverse> apply(EdgeWrite.PendingInverse pending) {
    return pending.outboxed() ? applyEntry(pending.shard(), pending.entryId()) : applyOp(pending.op());
  }

  /** Applies the outbox entry {@code entryId} of {@code shard} and retires it; gone, it was applied. */
  Future<EdgeResult.Inverse> applyEntry(int shard, long entryId) {
    ShardRoute route;
    try {
      route = router.route(shard, Access.WRITE);
    } catch (GraphException readOnlyOrOffline) {
      return Future.succeededFuture(EdgeResult.Inverse.PENDING);
    }
    return client.read(route, sql -> OutboxTable.INSTANCE.get(sql, route, entryId))
        .compose(entry -> entry == null || entry.columns().kind() != OutboxOp.Kind.INVERSE_EDGE.code()
            // Gone: applied (by the drainer, or a reader). Not an inverse's: nothing of a write's to apply here.
            ? Future.succeededFuture(EdgeResult.Inverse.APPLIED)
            : writer.apply(InverseOp.of(entry.columns()))
                .compose(outcome -> client.write(route, sql -> OutboxTable.INSTANCE.delete(sql, route, entry.id()))
                    .map(answered(outcome))))
        .otherwise(EdgeResult.Inverse.PENDING);
  }

  /**
   * Makes the mirror of the copy (from, to) of {@code type} hold at least what that copy holds now,
   * read from its shard's primary: what a token naming the copy asks, and one side of a pair a
   * multi-read found torn. A copy that is not there, or a type without inverse, leaves nothing to apply.
   */
  Future<EdgeResult.Inverse> converge(EdgeType type, NodeId from, NodeId to) {
    EdgeType inverse = schemas.current().inverseOf(type).orElse(null);
    if (inverse == null) {
      return Future.succeededFuture(EdgeResult.Inverse.APPLIED);
    }
    return Futures.started(() -> {
          ShardRoute route = router.route(from.shard(), Access.WRITE);
          return client.read(route, sql -> new EdgesTable(type).get(sql, route, from.value(), to.value()));
        })
        .compose(row -> {
          InverseOp op = row == null ? null : InverseOp.mirror(type, inverse, from, to, row);
          return op == null ? Future.succeededFuture(EdgeResult.Inverse.APPLIED) : applyOp(op);
        })
        .otherwise(EdgeResult.Inverse.PENDING);
  }

  /** {@link #converge} of a copy named by its edge type's id; a type the schema no longer has leaves nothing. */
  Future<EdgeResult.Inverse> converge(int typeId, NodeId from, NodeId to) {
    return schemas.current().edgeType(typeId).map(type -> converge(type, from, to))
        .orElse(Future.succeededFuture(EdgeResult.Inverse.APPLIED));
  }

  /** Writes {@code op} now. */
  private Future<EdgeResult.Inverse> applyOp(InverseOp op) {
    return Futures.started(() -> writer.apply(op)).map(InverseNow::answered).otherwise(EdgeResult.Inverse.PENDING);
  }

  private static EdgeResult.Inverse answered(InverseWriter.Outcome outcome) {
    return outcome == InverseWriter.Outcome.REMOVED ? EdgeResult.Inverse.REMOVED : EdgeResult.Inverse.APPLIED;
  }
}
