package io.quiver.edge;

import io.quiver.id.NodeId;
import io.quiver.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;

/** Where a forward write records, in its own transaction, the operation its inverse copy needs. */
public interface InverseLog {
  /** Records that row (from, to) of edge type {@code inverseTypeId} must become {@code row}; answers the entry id. */
  Future<Long> append(SqlConnection connection, ShardRoute route, int inverseTypeId, NodeId from, NodeId to,
      EdgeRow row);
}
