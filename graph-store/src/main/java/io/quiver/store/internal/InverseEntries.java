package io.quiver.store.internal;

import io.quiver.store.ChangeLogSettings;
import io.quiver.store.internal.outbox.InverseOp;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import java.time.Clock;
import java.util.List;

/**
 * Where a forward write leaves its inverse copy to be written, so that it is never lost: in an
 * outbox entry committed in the write's own transaction (the transactional outbox), or — when the
 * change log is written from the binary log — nowhere but the forward copy's row itself, in the
 * write's transaction in its host's binary log, which the host's tailer reads and whose inverse
 * it writes before it moves its position past it ({@code ChangeTailer}; docs/design.md, "Inverses
 * written from the binary log"). The second costs a write no statement: the binary log is written
 * anyway, and durable when the transaction is ({@code sync_binlog=1}).
 */
final class InverseEntries {
  private final boolean tailed;
  private final Clock clock;

  private InverseEntries(boolean tailed, Clock clock) {
    this.tailed = tailed;
    this.clock = clock;
  }

  /** Entries in the outbox, unless the log is written from the binary log ({@link ChangeLogSettings#tailed}). */
  static InverseEntries of(ChangeLogSettings changeLog, Clock clock) {
    return new InverseEntries(changeLog.tailed(), clock);
  }

  /**
   * Leaves {@code op}, the inverse of a copy of edge type {@code writtenType} the write wrote on
   * {@code route}'s shard, sent in the write's transaction: what waits, and where.
   */
  Future<EdgeWrite.PendingInverse> leave(SqlConnection connection, ShardRoute route, int writtenType, InverseOp op) {
    if (tailed) {
      return Future.succeededFuture(new EdgeWrite.PendingInverse(route.shard(), 0, writtenType, op));
    }
    return OutboxTable.INSTANCE.append(connection, route, op.columns(), SqlValues.nowMicros(clock))
        .map(id -> new EdgeWrite.PendingInverse(route.shard(), id, writtenType, op));
  }

  /**
   * Leaves a batch's inverses, their entries due at {@code dueUs}: their entry ids in order, none
   * when the binary log holds them.
   */
  Future<List<Long>> leaveAll(SqlConnection connection, ShardRoute route, List<InverseOp> ops, long nowUs,
      long dueUs) {
    if (tailed || ops.isEmpty()) {
      return Future.succeededFuture(List.of());
    }
    return OutboxTable.INSTANCE.appendMany(connection, route, ops.stream().map(InverseOp::columns).toList(), nowUs,
        dueUs);
  }
}
