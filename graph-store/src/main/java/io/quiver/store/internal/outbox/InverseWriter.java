package io.quiver.store.internal.outbox;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphChange;
import io.quiver.store.internal.Changes;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;

/**
 * The handler of {@link InverseOp}: applies one operation to one copy of an edge, idempotently.
 * The copy changes only if the operation outranks what it holds ({@link EdgeRow}), so applying
 * twice, late or out of order leaves the same result. Used by the drainer, by a request that
 * waits for its inverse, and by repair; a change is announced on the change feed.
 */
public final class InverseWriter implements OutboxHandler<InverseOp> {
  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final Changes changes;

  public InverseWriter(ShardRouter router, ShardClient client, SchemaSource schemas, Changes changes) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.changes = changes;
  }

  /** Answers whether the copy changed. */
  @Override
  public Future<Boolean> apply(InverseOp op) {
    return Futures.attempt(() -> target(op))
        .compose(target -> client.inTransaction(target.route(), connection -> target.table()
                .lock(connection, target.route(), op.from().value(), op.to().value())
                .compose(stored -> op.row().outranks(stored)
                    ? write(connection, target, op, stored)
                    : Future.succeededFuture(null)))
            .onSuccess(changed -> {
              if (changed != null) {
                changes.announce(changed);
              }
            })
            .map(changed -> changed != null));
  }

  private Future<GraphChange.EdgeChanged> write(SqlConnection connection, Target target, InverseOp op,
      EdgeRow stored) {
    EdgeRow row = op.row();
    return target.table().write(connection, target.route(), op.from().value(), op.to().value(), stored, row)
        .map(version -> new GraphChange.EdgeChanged(op.from(), target.table().type().name(), op.to(),
            row.active() ? target.table().edge(op.from(), op.to(), row) : null, version,
            EdgesTable.countDelta(stored, row)));
  }

  private record Target(EdgesTable table, ShardRoute route) {}

  private Target target(InverseOp op) {
    EdgeType type = schemas.current().edgeType(op.edgeTypeId())
        .orElseThrow(() -> GraphException.of(GraphException.Code.INTERNAL,
            "edge type id " + op.edgeTypeId() + " is not in the schema"));
    return new Target(new EdgesTable(type), router.route(op.from().shard(), Access.WRITE));
  }
}
