package io.quiver.core.zk;

import io.vertx.core.Future;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Function;
import java.util.function.LongConsumer;
import java.util.function.Supplier;
import java.util.function.ToLongFunction;

/**
 * The versions of a watched document — the schema, the shard map — that writes in flight began
 * under, so that this process acknowledges a version ({@link ServedVersions}) only once no write
 * begun under an older one can still commit. What an administrator's change waits for before it
 * acts: a unique index being built, once every server has acknowledged the schema version that
 * declares it, sees every write that can still commit claim its values; a shard move's cut-over,
 * once every server has acknowledged the map that turns the moving shards read-only, knows no
 * write can commit on the source any more. Vitess fences a cut-over the same way, waiting for
 * every tablet to refuse writes before it switches.
 *
 * <p>A write registers under the document in force, then checks it is still in force; if a newer
 * one was swapped in between, it lets go and takes that one. So an acknowledgement computed after
 * a swap can never miss a write that goes on under the version before it. The count spans the
 * write's future — for a database write, until the database has answered, not the caller's
 * deadline, which can answer first: a COMMIT still in flight keeps the fence closed.
 *
 * <p>The steady state, every write under the current version, costs an increment and a
 * decrement; only the last write of an older version moves the acknowledgement. The owner calls
 * {@link #evaluate} when a new version is swapped in.
 *
 * @param <D> the document
 */
public final class VersionFence<D> {
  private final Supplier<D> current;
  private final ToLongFunction<D> versionOf;
  private final LongConsumer acknowledge;
  /** Writes in flight per version; one entry per version ever written under (a handful), never removed. */
  private final Map<Long, AtomicInteger> inFlight = new ConcurrentHashMap<>();

  /**
   * @param current the document in force now
   * @param versionOf a document's version
   * @param acknowledge told the newest version no older write is in flight under, whenever it may have moved
   */
  public VersionFence(Supplier<D> current, ToLongFunction<D> versionOf, LongConsumer acknowledge) {
    this.current = current;
    this.versionOf = versionOf;
    this.acknowledge = acknowledge;
  }

  /**
   * Runs {@code work} under the document in force, counted in flight until its future completes.
   * The work may refuse (a failed future) after looking at the document: it is counted all the
   * same, and let go when it fails.
   */
  public <T> Future<T> write(Function<D, Future<T>> work) {
    D document = begin();
    long version = versionOf.applyAsLong(document);
    Future<T> done;
    try {
      done = work.apply(document);
    } catch (RuntimeException e) {
      done = Future.failedFuture(e);
    }
    return done.andThen(finished -> end(version));
  }

  private D begin() {
    while (true) {
      D document = current.get();
      long version = versionOf.applyAsLong(document);
      inFlight.computeIfAbsent(version, v -> new AtomicInteger()).incrementAndGet();
      if (versionOf.applyAsLong(current.get()) == version) {
        return document;
      }
      end(version);
    }
  }

  private void end(long version) {
    AtomicInteger count = inFlight.get(version);
    if (count != null && count.decrementAndGet() == 0 && version < versionOf.applyAsLong(current.get())) {
      evaluate();
    }
  }

  /** Acknowledges the current version, or the oldest one a write is still in flight under. */
  public void evaluate() {
    long served = versionOf.applyAsLong(current.get());
    for (Map.Entry<Long, AtomicInteger> entry : inFlight.entrySet()) {
      if (entry.getValue().get() > 0) {
        served = Math.min(served, entry.getKey());
      }
    }
    acknowledge.accept(served);
  }
}
