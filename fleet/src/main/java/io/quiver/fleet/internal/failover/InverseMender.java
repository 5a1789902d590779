package io.quiver.fleet.internal.failover;

import io.quiver.core.Futures;
import io.quiver.schema.EdgeType;
import io.quiver.schema.SchemaSource;
import io.quiver.store.Repairs;
import io.vertx.core.Future;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The repair that ends an unplanned failover: every edge type with an inverse, one pair at a time.
 * A write the old primary committed alone was answered "may or may not have been applied", and its
 * inverse may have been applied from there before the primary died; the repair makes both copies
 * agree again, as it does after a disk-full stall (docs/design.md, "Failover is one coordinator's").
 *
 * <p>It runs beside the coordinator, never on its thread. The repair reads every shard of the fleet
 * and takes as long as the data does — minutes on a large one — and a coordinator waiting for it
 * probes no primary meanwhile: a second host lost during the mend (or the promoted replica itself)
 * would go unnoticed until the repair ended. {@link Repairs} is reactive, so the pass is a chain of
 * futures and holds no thread at all; asked again while a pass runs (a second failover), one more
 * pass follows it, however often it is asked, since the pass under way may have read the shards the
 * new failover changed before it happened.
 */
final class InverseMender implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(InverseMender.class);

  private final Repairs repairs;
  private final SchemaSource schemas;
  /** Guards the three flags below; held only to read and flip them, never across a repair. */
  private final Object lock = new Object();
  private boolean running;
  private boolean again;
  private boolean closed;

  InverseMender(Repairs repairs, SchemaSource schemas) {
    this.repairs = repairs;
    this.schemas = schemas;
  }

  /** Mends every pair now, or once the pass under way ends: at most one pass waits, however many ask. */
  void request() {
    synchronized (lock) {
      if (closed) {
        return;
      }
      if (running) {
        again = true;
        return;
      }
      running = true;
    }
    pass();
  }

  private void pass() {
    Futures.forEach(pairs(), this::mend).onComplete(done -> {
      synchronized (lock) {
        running = again && !closed;
        again = false;
        if (!running) {
          return;
        }
      }
      pass();
    });
  }

  /** One type of each pair with an inverse: the one whose name sorts first, or the symmetric type itself. */
  private List<String> pairs() {
    return schemas.current().edgeTypes().values().stream()
        .filter(type -> type.inverse() != null && (type.symmetric() || type.name().compareTo(type.inverse()) < 0))
        .map(EdgeType::name)
        .sorted()
        .toList();
  }

  /** Repairs {@code type}'s pairs; a repair that fails is logged for the operator, and the pass goes on. */
  private Future<Void> mend(String type) {
    return repairs.edges(type, line -> { })
        .<Void>map(report -> {
          if (report.fixed() > 0) {
            log.warn("after the failover, {} pairs of {} were mended", report.fixed(), type);
          }
          return null;
        })
        .otherwise(failure -> {
          log.warn("after the failover, the repair of {} did not finish: {}; run quiver repair", type,
              failure.getMessage());
          return null;
        });
  }

  /** Starts no further pass; one under way ends by itself (its repairs fail once the backend closes). */
  @Override
  public void close() {
    synchronized (lock) {
      closed = true;
    }
  }
}
