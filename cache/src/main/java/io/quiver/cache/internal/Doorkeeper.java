package io.quiver.cache.internal;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLongArray;

/**
 * Which keys were asked about recently: TinyLFU's doorkeeper (Einziger, Friedman and Manes,
 * "TinyLFU: A Highly Efficient Cache Admission Policy", 2017), here in front of the single-edge
 * cache. An edge not asked about before is answered by the store's plain read and not kept; one
 * asked about again within the doorkeeper's memory is read with its list's version and kept. So a
 * stream of one-off pairs — a batch across random sources — costs what the uncached read costs
 * (and does not grow the lists' points with targets nobody asks about twice), and what is read
 * twice is kept from the second time.
 *
 * <p>A bit per hashed key, cleared whole after as many keys as a quarter of its bits were let in,
 * so it remembers roughly the last that many keys. A false positive admits a key early; a race
 * between two callers at most admits or refuses one key once more than it should.
 */
public final class Doorkeeper {
  private static final int BITS = 1 << 20;

  private final int mask;
  private final int memory;
  private final AtomicLongArray words;
  private final AtomicInteger remembered = new AtomicInteger();

  public Doorkeeper() {
    this(BITS);
  }

  /** With {@code bits} bits (a power of two, at least 64): a smaller one for tests. */
  Doorkeeper(int bits) {
    this.mask = bits - 1;
    this.memory = bits / 4;
    this.words = new AtomicLongArray(bits / 64);
  }

  /** Whether {@code key} was asked about before; remembers it either way. */
  public boolean seenBefore(Object key) {
    int hash = key.hashCode() * 0x9E3779B9;
    int bit = (hash ^ (hash >>> 16)) & mask;
    long flag = 1L << (bit & 63);
    long before = words.getAndUpdate(bit >>> 6, word -> word | flag);
    if ((before & flag) != 0) {
      return true;
    }
    if (remembered.incrementAndGet() >= memory) {
      remembered.set(0);
      for (int i = 0; i < words.length(); i++) {
        words.set(i, 0);
      }
    }
    return false;
  }
}
