package io.quiver.store.internal;

import io.quiver.schema.Schema;
import io.quiver.store.RepairReport;
import io.quiver.store.Repairs;
import io.quiver.store.UniqueRepairReport;
import io.quiver.store.internal.outbox.InverseRepair;
import io.quiver.store.internal.outbox.OutboxRetry;
import io.quiver.store.internal.outbox.TailBarrier;
import io.vertx.core.Future;
import java.util.function.Consumer;

/**
 * A backend's {@link Repairs}: its three scans, on its background pools, and the wait for a host's
 * tailer ({@link TailBarrier}, null when the writes log their own changes).
 */
final class BackendRepairs implements Repairs {
  private final InverseRepair edges;
  private final UniqueRepair unique;
  private final OutboxRetry parked;
  private final TailBarrier tails;

  BackendRepairs(InverseRepair edges, UniqueRepair unique, OutboxRetry parked, TailBarrier tails) {
    this.edges = edges;
    this.unique = unique;
    this.parked = parked;
    this.tails = tails;
  }

  @Override
  public Future<RepairReport> edges(String edgeType, Consumer<String> progress) {
    return edges.run(edgeType, progress);
  }

  @Override
  public Future<UniqueRepairReport> unique(Schema schema, String type, String field, Consumer<String> progress) {
    return unique.run(schema, type, field, progress);
  }

  @Override
  public Future<Long> retryParked(String host) {
    return parked.run(host);
  }

  @Override
  public Future<Void> caughtUp(String host) {
    return tails == null ? Future.succeededFuture() : tails.passed(host);
  }
}
