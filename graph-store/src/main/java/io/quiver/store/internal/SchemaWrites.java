package io.quiver.store.internal;

import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.vertx.core.Future;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongConsumer;

/**
 * The schema versions that node writes in flight began under, so that this process acknowledges
 * a version ({@link io.quiver.core.zk.ServedVersions}) only once no write begun under an older one
 * can still commit. A unique index being built relies on it: once every server has acknowledged
 * the version that declares the index, every write that can still commit claims its values.
 *
 * <p>A write registers the snapshot it takes, then checks the snapshot is still current; if a new
 * version was swapped in between, it lets go and takes that one. So an acknowledgement computed
 * after a swap can never miss a write that goes on under the version before it.
 */
final class SchemaWrites {
  private final SchemaSource schemas;
  private final LongConsumer acknowledge;
  /** Writes in flight per version; one entry per version ever written under (a handful), never removed. */
  private final Map<Long, AtomicInteger> inFlight = new ConcurrentHashMap<>();

  /** @param acknowledge told the newest version no older write is in flight under, whenever it may have moved */
  SchemaWrites(SchemaSource schemas, LongConsumer acknowledge) {
    this.schemas = schemas;
    this.acknowledge = acknowledge;
    schemas.onChange(changed -> evaluate());
  }

  /** Runs a node write under the current schema, counted in flight until it completes. */
  <T> Future<T> write(Function<Schema, Future<T>> work) {
    Schema schema = begin();
    Future<T> done;
    try {
      done = work.apply(schema);
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    return done.andThen(finished -> end(schema.version()));
  }

  private Schema begin() {
    while (true) {
      Schema schema = schemas.current();
      inFlight.computeIfAbsent(schema.version(), version -> new AtomicInteger()).incrementAndGet();
      if (schemas.current().version() == schema.version()) {
        return schema;
      }
      end(schema.version());
    }
  }

  /**
   * Only the last write of an older version can move the acknowledgement: the steady state — every
   * write under the current version — costs a decrement and no more.
   */
  private void end(long version) {
    AtomicInteger count = inFlight.get(version);
    if (count != null && count.decrementAndGet() == 0 && version < schemas.current().version()) {
      evaluate();
    }
  }

  /** Acknowledges the current version, or the oldest one a write is still in flight under. */
  void evaluate() {
    long served = schemas.current().version();
    for (Map.Entry<Long, AtomicInteger> entry : inFlight.entrySet()) {
      if (entry.getValue().get() > 0) {
        served = Math.min(served, entry.getKey());
      }
    }
    acknowledge.accept(served);
  }
}
