package io.quiver.store.shard;

import io.quiver.core.GraphException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.random.RandomGenerator;

/**
 * Where every shard lives, as one immutable, validated, versioned value.
 *
 * <p>Invariants, checked on construction so that a bad document is refused before any server
 * serves from it: the ranges are sorted, contiguous and non-overlapping; every range names a
 * defined host; every open span and every state override lies inside the ranges.
 *
 * @param version increases by one with every published change (compare-and-set in ZooKeeper)
 * @param hosts host name to host
 * @param ranges which host holds which shards
 * @param open the shards that accept new nodes
 * @param states per-shard overrides of the default {@link ShardState#READ_WRITE}
 */
public record ShardMap(
    long version,
    Map<String, Host> hosts,
    List<ShardRange> ranges,
    List<ShardSpan> open,
    Map<Integer, ShardState> states) {

  public ShardMap {
    if (version < 0) {
      throw GraphException.invalid("shard map version must not be negative");
    }
    hosts = Map.copyOf(hosts);
    ranges = sorted(ranges);
    open = List.copyOf(open);
    states = Map.copyOf(states);
    checkHosts(hosts);
    checkRanges(ranges, hosts);
    for (ShardSpan span : open) {
      if (!covers(ranges, span.from()) || !covers(ranges, span.to())) {
        throw GraphException.invalid(
            "open span " + span.from() + ".." + span.to() + " is not inside the shard map's ranges");
      }
    }
    for (Integer shard : states.keySet()) {
      if (!covers(ranges, shard)) {
        throw GraphException.invalid("state given for shard " + shard + ", which is not in the map");
      }
    }
  }

  /** The range holding the shard, if the map has it. */
  public Optional<ShardRange> rangeOf(int shard) {
    int low = 0;
    int high = ranges.size() - 1;
    while (low <= high) {
      int mid = (low + high) >>> 1;
      ShardRange range = ranges.get(mid);
      if (shard < range.from()) {
        high = mid - 1;
      } else if (shard > range.to()) {
        low = mid + 1;
      } else {
        return Optional.of(range);
      }
    }
    return Optional.empty();
  }

  public boolean contains(int shard) {
    return rangeOf(shard).isPresent();
  }

  public ShardState stateOf(int shard) {
    return states.getOrDefault(shard, ShardState.READ_WRITE);
  }

  /** Every shard held by the named host, in order. */
  public List<Integer> shardsOn(String host) {
    List<Integer> shards = new ArrayList<>();
    for (ShardRange range : ranges) {
      if (range.host().equals(host)) {
        for (int shard = range.from(); shard <= range.to(); shard++) {
          shards.add(shard);
        }
      }
    }
    return shards;
  }

  /** Every shard in the map, in order. */
  public List<Integer> allShards() {
    List<Integer> shards = new ArrayList<>();
    for (ShardRange range : ranges) {
      for (int shard = range.from(); shard <= range.to(); shard++) {
        shards.add(shard);
      }
    }
    return shards;
  }

  /**
   * A shard for a new node: uniformly at random among the open shards that are writable, or
   * empty when there is none. Draws a few times before scanning, so the common case costs O(1)
   * however many shards are open.
   */
  public Optional<Integer> pickShardForNewNode(RandomGenerator random) {
    return pickShardForNewNode(random, shard -> true);
  }

  /**
   * As {@link #pickShardForNewNode(RandomGenerator)}, among the shards {@code usable} also accepts
   * (those whose host answers and whose commits do not stall, say).
   */
  public Optional<Integer> pickShardForNewNode(RandomGenerator random, java.util.function.IntPredicate usable) {
    long openCount = open.stream().mapToLong(ShardSpan::size).sum();
    if (openCount == 0) {
      return Optional.empty();
    }
    for (int attempt = 0; attempt < 8; attempt++) {
      int shard = nthOpenShard(random.nextLong(openCount));
      if (stateOf(shard).writable() && usable.test(shard)) {
        return Optional.of(shard);
      }
    }
    List<Integer> writable = new ArrayList<>();
    for (ShardSpan span : open) {
      for (int shard = span.from(); shard <= span.to(); shard++) {
        if (stateOf(shard).writable() && usable.test(shard)) {
          writable.add(shard);
        }
      }
    }
    return writable.isEmpty()
        ? Optional.empty()
        : Optional.of(writable.get(random.nextInt(writable.size())));
  }

  /** A copy with another version, for publishing a change. */
  public ShardMap withVersion(long newVersion) {
    return new ShardMap(newVersion, hosts, ranges, open, states);
  }

  /** A copy in which one host has another primary address, as after a failover. */
  public ShardMap withHost(Host host) {
    Map<String, Host> changed = new TreeMap<>(hosts);
    changed.put(host.name(), host);
    return new ShardMap(version, changed, ranges, open, states);
  }

  /** A copy with one shard's state overridden. */
  public ShardMap withState(int shard, ShardState state) {
    Map<Integer, ShardState> changed = new TreeMap<>(states);
    if (state == ShardState.READ_WRITE) {
      changed.remove(shard);
    } else {
      changed.put(shard, state);
    }
    return new ShardMap(version, hosts, ranges, open, changed);
  }

  private int nthOpenShard(long n) {
    for (ShardSpan span : open) {
      if (n < span.size()) {
        return (int) (span.from() + n);
      }
      n -= span.size();
    }
    throw new IllegalStateException("n exceeds the open shard count");
  }

  private static List<ShardRange> sorted(List<ShardRange> ranges) {
    List<ShardRange> copy = new ArrayList<>(ranges);
    copy.sort(Comparator.comparingInt(ShardRange::from));
    return List.copyOf(copy);
  }

  private static void checkHosts(Map<String, Host> hosts) {
    hosts.forEach((name, host) -> {
      if (!name.equals(host.name())) {
        throw GraphException.invalid("host '" + host.name() + "' is filed as '" + name + "'");
      }
    });
  }

  private static void checkRanges(List<ShardRange> ranges, Map<String, Host> hosts) {
    if (ranges.isEmpty()) {
      throw GraphException.invalid("a shard map needs at least one range");
    }
    ShardRange previous = null;
    for (ShardRange range : ranges) {
      if (!hosts.containsKey(range.host())) {
        throw GraphException.invalid(
            "range " + range.from() + ".." + range.to() + " names host '" + range.host() + "', which is not defined");
      }
      if (previous != null && range.from() <= previous.to()) {
        throw GraphException.invalid(
            "ranges " + previous.from() + ".." + previous.to() + " and " + range.from() + ".." + range.to() + " overlap");
      }
      if (previous != null && range.from() != previous.to() + 1) {
        throw GraphException.invalid(
            "ranges leave a gap between " + previous.to() + " and " + range.from() + "; they must be contiguous");
      }
      previous = range;
    }
  }

  private static boolean covers(List<ShardRange> ranges, int shard) {
    return ranges.stream().anyMatch(range -> range.contains(shard));
  }
}
