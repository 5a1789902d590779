package io.quiver.outbox;

import io.quiver.edge.EdgeChanges;
import io.quiver.edge.EdgeRow;
import io.quiver.edge.EdgeRows;
import io.quiver.error.Futures;
import io.quiver.error.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.SchemaSource;
import io.quiver.sql.Access;
import io.quiver.sql.ShardClient;
import io.quiver.sql.ShardRoute;
import io.quiver.sql.ShardRouter;
import io.vertx.core.Future;

/**
 * Applies one operation to one copy of an edge, idempotently: the copy changes only if the
 * operation outranks what it holds ({@link EdgeRow}), so applying twice, late or out of order
 * leaves the same result.
 */
public final class InverseWriter {
  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final EdgeChanges changes;

  public InverseWriter(ShardRouter router, ShardClient client, SchemaSource schemas, EdgeChanges changes) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.changes = changes;
  }

  /** Answers whether the copy changed. */
  public Future<Boolean> apply(InverseOp op) {
    return Futures.attempt(() -> target(op))
        .compose(target -> client.inTransaction(target.route(), connection -> {
          String table = target.route().table(target.type().tableName());
          return EdgeRows.lock(connection, table, op.from().value(), op.to().value())
              .compose(stored -> op.row().outranks(stored)
                  ? EdgeRows.write(connection, target.route(), table, target.type().id(), op.from().value(),
                      op.to().value(), stored, op.row()).map(true)
                  : Future.succeededFuture(false));
        }).onSuccess(changed -> {
          if (changed) {
            changes.changed(op.from(), target.type().name());
          }
        }));
  }

  private record Target(EdgeType type, ShardRoute route) {}

  private Target target(InverseOp op) {
    EdgeType type = schemas.current().edgeType(op.edgeTypeId())
        .orElseThrow(() -> GraphException.of(GraphException.Code.INTERNAL,
            "edge type id " + op.edgeTypeId() + " is not in the schema"));
    return new Target(type, router.route(op.from().shard(), Access.WRITE));
  }
}
