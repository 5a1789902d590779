package io.quiver.cache.internal;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import com.github.benmanes.caffeine.cache.Expiry;
import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.CacheFigures;
import java.time.Duration;
import java.util.HashMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.BiPredicate;
import java.util.function.BinaryOperator;
import java.util.function.ToIntFunction;
import java.util.function.Supplier;
import java.util.function.UnaryOperator;

/**
 * A bounded cache whose entries can only move forward in time.
 *
 * <h2>The rule</h2>
 * MySQL first, then the cache. Every change to a key — a local write, a removal, an invalidation
 * from another server — takes a stamp from one counter and leaves an entry carrying it: the new
 * value, or a marker when there is no value to keep. A fill from the database takes its stamp
 * when its read begins, and lands only if no entry stamped later is there: a read that began
 * before a write can never put the older value over the newer one, even if it finishes after it.
 * Where values carry their own versions (nodes), a value also never replaces a newer version.
 * Markers expire quickly; after that, a key is simply absent. Failures are never cached.
 *
 * <h2>Groups</h2>
 * A key may belong to a group (its node or edge type), and a group can be cleared alone
 * ({@link #clearGroup}): the group takes a floor stamp, and its entries stamped at or below it
 * are no longer answered (each is removed when next looked up), nor are fills that began before
 * it accepted. Nothing is scanned, so clearing a type costs the same whatever the cache holds.
 *
 * <h2>Markers</h2>
 * An <em>absent</em> marker says the key is known not to exist (a negative entry, short-lived);
 * an <em>invalidated</em> marker says only that anything older than it is stale.
 *
 * <h2>Maintenance on the caller's thread</h2>
 * Caffeine's upkeep — replaying its read and write buffers, evicting, expiring — runs on the
 * thread that writes ({@code executor(Runnable::run)}), under Caffeine's own try-lock, rather
 * than as a task for the common pool. By default a write that leaves upkeep to do hands the pool
 * a task; with writes arriving thousands a second, that woke a pool thread for each, on a machine
 * whose cores the event loops and MariaDB already use (a writes mix's profile: 6 % of the server's
 * time in the cache, most of it the hand-off). The upkeep is the same work either way; here it is
 * done where it arises, in batches Caffeine bounds, and nothing it runs blocks: no removal
 * listener is registered, and the weigher and the expiry read only the value.
 */
public final class GuardedCache<K, V> {
  /** What a key holds. */
  public sealed interface Slot<V> permits Present, Marker {
    long stamp();
  }

  public record Present<V>(V value, long stamp) implements Slot<V> {}

  public record Marker<V>(boolean absent, long stamp) implements Slot<V> {}

  private final Cache<K, Slot<V>> cache;
  private final AtomicLong clock = new AtomicLong();
  /** Fills that began at or before this stamp are refused: everything was cleared after them. */
  private volatile long floor;
  private final BiPredicate<V, V> newer;
  private final Function<K, Object> group;
  /** Per group, the stamp at or below which its entries and fills no longer count; empty until a group is cleared. */
  private final Map<Object, Long> groupFloors = new ConcurrentHashMap<>();
  private final LongAdder hits = new LongAdder();
  private final LongAdder misses = new LongAdder();

  /**
   * @param maxWeight the bound, in the weigher's units (bytes)
   * @param weigher the weight of a value
   * @param newer whether the first value may replace the second (by version, where there is one)
   * @param valueTtl a safety net for values: a change another server failed to announce is
   *     forgotten after this long
   * @param absentTtl how long a key is known to be absent
   * @param invalidatedTtl how long an invalidation fences off older fills
   */
  public GuardedCache(long maxWeight, ToIntFunction<V> weigher, BiPredicate<V, V> newer, Duration valueTtl,
      Duration absentTtl, Duration invalidatedTtl, Ticker ticker) {
    this(maxWeight, weigher, newer, valueTtl, absentTtl, invalidatedTtl, ticker, key -> null);
  }

  /** As above, each key belonging to {@code group} (null for none), which {@link #clearGroup} clears alone. */
  public GuardedCache(long maxWeight, ToIntFunction<V> weigher, BiPredicate<V, V> newer, Duration valueTtl,
      Duration absentTtl, Duration invalidatedTtl, Ticker ticker, Function<K, Object> group) {
    this.newer = newer;
    this.group = group;
    this.cache = Caffeine.newBuilder()
        .maximumWeight(maxWeight)
        .<K, Slot<V>>weigher((key, slot) -> slot instanceof Present<V> present ? weigher.applyAsInt(present.value()) : 16)
        .expireAfter(new Expiry<K, Slot<V>>() {
          @Override
          public long expireAfterCreate(K key, Slot<V> slot, long now) {
            return ttl(slot);
          }

          @Override
          public long expireAfterUpdate(K key, Slot<V> slot, long now, long remaining) {
            return ttl(slot);
          }

          @Override
          public long expireAfterRead(K key, Slot<V> slot, long now, long remaining) {
            return remaining;
          }

          private long ttl(Slot<V> slot) {
            if (slot instanceof Marker<V> marker) {
              return (marker.absent() ? absentTtl : invalidatedTtl).toNanos();
            }
            return valueTtl.toNanos();
          }
        })
        .ticker(ticker)
        .executor(Runnable::run)
        .recordStats()
        .build();
  }

  /** The stamp a fill takes before it reads the database. */
  public long begin() {
    return clock.incrementAndGet();
  }

  /** The value if present; counts a hit or a miss. An absent marker is a hit (the answer is known). */
  public Slot<V> lookup(K key) {
    Slot<V> slot = current(key);
    if (slot instanceof Present<V> || (slot instanceof Marker<V> marker && marker.absent())) {
      hits.increment();
      return slot;
    }
    misses.increment();
    return null;
  }

  /**
   * What the key holds, without counting a hit or a miss: for a caller that decides itself
   * whether what is held answers its question ({@link #counted}).
   */
  public Slot<V> peek(K key) {
    return current(key);
  }

  /** What the key holds, unless its group was cleared after it was stamped (then it is removed). */
  private Slot<V> current(K key) {
    Slot<V> slot = cache.getIfPresent(key);
    Slot<V> standing = standing(key, slot);
    if (standing == null && slot != null) {
      cache.asMap().remove(key, slot);
    }
    return standing;
  }

  /** {@code slot}, or null when there is none or its group was cleared after it was stamped. */
  private Slot<V> standing(K key, Slot<V> slot) {
    return slot == null || slot.stamp() <= groupFloor(key) ? null : slot;
  }

  private long groupFloor(K key) {
    if (groupFloors.isEmpty()) {
      return 0;
    }
    Object of = group.apply(key);
    return of == null ? 0 : groupFloors.getOrDefault(of, 0L);
  }

  /** Forgets every entry of {@code group}, and refuses its fills that began before now. */
  public void clearGroup(Object group) {
    groupFloors.put(group, clock.incrementAndGet());
  }

  /** Counts questions answered from memory, or not, for a caller that looked with {@link #peek}. */
  public void counted(boolean hit, int questions) {
    (hit ? hits : misses).add(questions);
  }

  /**
   * A value read from the database by a read that began at {@code begun}, merged into the value
   * held (if one is, and nothing changed the key since the read began) by {@code merge}.
   */
  public void fill(K key, long begun, V value, BinaryOperator<V> merge) {
    if (begun <= floor || begun <= groupFloor(key)) {
      return;
    }
    cache.asMap().compute(key, (k, given) -> {
      Slot<V> old = standing(key, given);
      if (old != null && old.stamp() > begun) {
        return old;
      }
      // Nothing changed the key after old's stamp, nor after begun: the merge keeps the earlier stamp.
      return old instanceof Present<V> present ? new Present<>(merge.apply(present.value(), value), present.stamp())
          : new Present<>(value, begun);
    });
  }

  /**
   * A value read from the database by a read that began at {@code begun}; it replaces a value held
   * only where it is newer ({@code newer}: by version, where values carry one).
   */
  public void fill(K key, long begun, V value) {
    fill(key, begun, value, (held, read) -> newer.test(read, held) ? read : held);
  }

  /** The key was found absent by a read that began at {@code begun}. */
  public void fillAbsent(K key, long begun) {
    if (begun <= floor || begun <= groupFloor(key)) {
      return;
    }
    cache.asMap().compute(key, (k, given) -> {
      Slot<V> old = standing(key, given);
      return old != null && old.stamp() > begun ? old : new Marker<>(true, begun);
    });
  }

  /** A value this process has just committed. */
  public void write(K key, V value) {
    long stamp = clock.incrementAndGet();
    cache.asMap().compute(key, (k, given) -> standing(key, given) instanceof Present<V> present
        && !newer.test(value, present.value()) ? present : new Present<>(value, stamp));
  }

  /** The key was removed by a commit of this process. */
  public void writeAbsent(K key) {
    cache.put(key, new Marker<>(true, clock.incrementAndGet()));
  }

  /**
   * A change this process has just committed, applied in place to the value held: {@code change}
   * answers the value after it, or null when it cannot tell (then the key is invalidated). With
   * nothing held, the key is invalidated: a fill that began before the change is refused.
   */
  public void update(K key, UnaryOperator<V> change) {
    update(key, change, () -> null);
  }

  /**
   * As {@link #update(Object, UnaryOperator)}, except that with no entry at all for the key —
   * neither a value nor a marker — the change leaves {@code created} (what the change alone says
   * is true). A marker stays a marker: it may fence off a change another server made after this
   * one, whose invalidation arrived before this change was applied.
   */
  public void update(K key, UnaryOperator<V> change, Supplier<V> created) {
    cache.asMap().compute(key, (k, given) -> {
      Slot<V> old = standing(key, given);
      long stamp = clock.incrementAndGet();
      V changed = old instanceof Present<V> present ? change.apply(present.value()) : old == null ? created.get() : null;
      return changed != null ? new Present<>(changed, stamp) : new Marker<>(false, stamp);
    });
  }

  /** Whatever is cached for the key is stale: forget it, and refuse fills that began before now. */
  public void invalidate(K key) {
    cache.put(key, new Marker<>(false, clock.incrementAndGet()));
  }

  /** The values held now (not the markers), for a check against the database. */
  public Map<K, V> values() {
    Map<K, V> values = new HashMap<>();
    cache.asMap().forEach((key, slot) -> {
      if (standing(key, slot) instanceof Present<V> present) {
        values.put(key, present.value());
      }
    });
    return values;
  }

  /** Forgets everything, and refuses every fill that began before now. */
  public void clear() {
    floor = clock.incrementAndGet();
    cache.invalidateAll();
  }

  public CacheFigures figures(String name, long invalidationsSent, long invalidationsReceived) {
    return new CacheFigures(name, hits.sum(), misses.sum(), cache.stats().evictionCount(),
        cache.policy().eviction().map(eviction -> eviction.weightedSize().orElse(0)).orElse(0L),
        cache.estimatedSize(), invalidationsSent, invalidationsReceived);
  }
}
