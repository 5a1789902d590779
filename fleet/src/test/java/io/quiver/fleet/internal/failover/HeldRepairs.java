package io.quiver.fleet.internal.failover;

import io.quiver.schema.Schema;
import io.quiver.store.RepairReport;
import io.quiver.store.Repairs;
import io.quiver.store.UniqueRepairReport;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Consumer;

/**
 * The fleet's real repairs, with edge repairs that can be held at their start until the test lets
 * them go: what a repair of a large fleet, minutes long, looks like to whoever waits for it. Every
 * edge repair begun and finished is recorded by type.
 */
final class HeldRepairs implements Repairs {
  private final Repairs real;
  private volatile Promise<Void> gate;
  private final List<String> begun = new CopyOnWriteArrayList<>();
  private final List<String> finished = new CopyOnWriteArrayList<>();

  HeldRepairs(Repairs real) {
    this.real = real;
  }

  /** Edge repairs begun from now on wait until {@link #release}. */
  void hold() {
    gate = Promise.promise();
  }

  /** Lets every held repair run, and those begun later run at once. */
  void release() {
    Promise<Void> held = gate;
    gate = null;
    if (held != null) {
      held.complete();
    }
  }

  /** The edge types whose repair has begun, once per repair, held or not. */
  List<String> begun() {
    return List.copyOf(begun);
  }

  /** The edge types whose repair has ended, once per repair, whether it succeeded or failed. */
  List<String> finished() {
    return List.copyOf(finished);
  }

  @Override
  public Future<RepairReport> edges(String edgeType, Consumer<String> progress) {
    begun.add(edgeType);
    Promise<Void> held = gate;
    Future<Void> start = held == null ? Future.succeededFuture() : held.future();
    return start.compose(go -> real.edges(edgeType, progress))
        .onComplete(done -> finished.add(edgeType));
  }

  @Override
  public Future<UniqueRepairReport> unique(Schema schema, String type, String field, Consumer<String> progress) {
    return real.unique(schema, type, field, progress);
  }

  @Override
  public Future<Long> retryParked(String host) {
    return real.retryParked(host);
  }

  @Override
  public Future<Void> caughtUp(String host) {
    return real.caughtUp(host);
  }
}
