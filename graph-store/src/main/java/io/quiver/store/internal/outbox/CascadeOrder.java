package io.quiver.store.internal.outbox;

import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.table.OutboxTable;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;

/**
 * A node's cascades count in the order they were asked for, and only the newest one matters:
 * archiving every edge of a node and then restoring them leaves what restoring alone leaves (all
 * active), and the reverse what archiving alone leaves (all archived); a deletion ends the node
 * and outranks both. So before a cascade is applied, the older cascades of its node still waiting
 * are retired unapplied, and of several cascades of one node in one batch only the newest is
 * applied.
 *
 * <p>Without this rule an archive and a restore of one node, drained side by side, each undid
 * what the other did, page after page, for ever: every round wrote each edge again and queued its
 * inverse (the convergence checker once left 49,430 entries behind), and one that was retried
 * could land after a newer one and leave the older state in force.
 */
final class CascadeOrder {
  private CascadeOrder() {}

  /** Whether {@code newer}, asked for after {@code older} on the same node, makes it needless. */
  static boolean supersedes(CascadeOp newer, CascadeOp older) {
    return newer.node().equals(older.node())
        && (newer.kind() == OutboxOp.Kind.CASCADE_DELETE || older.kind() != OutboxOp.Kind.CASCADE_DELETE);
  }

  /** The cascades of a batch that a newer one of the same batch supersedes (entry ids grow with time). */
  static List<OutboxEntry> superseded(List<OutboxEntry> batch) {
    List<OutboxEntry> superseded = new ArrayList<>();
    for (OutboxEntry entry : batch) {
      if (entry.op() instanceof CascadeOp older && batch.stream().anyMatch(other -> other.id() > entry.id()
          && other.op() instanceof CascadeOp newer && supersedes(newer, older))) {
        superseded.add(entry);
      }
    }
    return superseded;
  }

  /**
   * Retires the older cascades of a cascade entry's node that wait in its shard's outbox (a retried
   * one, say, due after this); nothing for an entry of another kind.
   */
  static Future<Void> retireOlder(ShardClient client, ShardRoute route, OutboxEntry entry) {
    if (!(entry.op() instanceof CascadeOp cascade)) {
      return Future.succeededFuture();
    }
    List<Integer> kinds = (cascade.kind() == OutboxOp.Kind.CASCADE_DELETE
        ? List.of(OutboxOp.Kind.CASCADE_DELETE, OutboxOp.Kind.CASCADE_ARCHIVE, OutboxOp.Kind.CASCADE_RESTORE)
        : List.of(OutboxOp.Kind.CASCADE_ARCHIVE, OutboxOp.Kind.CASCADE_RESTORE)).stream().map(OutboxOp.Kind::code)
        .toList();
    return client.write(route, sql -> OutboxTable.INSTANCE.deleteOlder(sql, route, kinds, cascade.node().value(),
        entry.id()));
  }
}
