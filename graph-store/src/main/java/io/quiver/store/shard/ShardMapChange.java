package io.quiver.store.shard;

import io.quiver.core.GraphException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * One change an operator makes to the shard map — add a host, open a range of new shards on a
 * host, set shards' state, list or unlist a host's replica — as a value that can be checked against the stored map before anything
 * is published. {@link #applyTo} answers the changed map (the caller publishes it one version up,
 * compare-and-set) or refuses with a message saying why; it never touches a host or ZooKeeper, so
 * the admin service can check reachability and provision in between.
 *
 * <p>Shards never change hands by an operator's change: a shard's data is where its range says, and
 * only a move's cut-over ({@link MoveShards}, after its copy and verification) points it elsewhere.
 */
public sealed interface ShardMapChange {

  /** The map with this change made, same version; refuses a change the map cannot take. */
  ShardMap applyTo(ShardMap map);

  /** One line for logs and answers: what the change does. */
  String describe();

  /**
   * Whether the changed map names shard databases that may not exist yet, which are then
   * provisioned before it is published. Only opening shards does: a state changes no table, and a
   * move's cut-over points at databases its copy made.
   */
  default boolean createsShards() {
    return false;
  }

  /**
   * A new host, holding no shards yet. Refused when the name is taken or its primary is already
   * another host's (two names for one database server would let a move copy a shard onto itself).
   */
  record AddHost(Host host) implements ShardMapChange {
    public AddHost {
      if (host == null) {
        throw GraphException.invalid("a host to add needs a name and a primary address");
      }
    }

    @Override
    public ShardMap applyTo(ShardMap map) {
      if (map.hosts().containsKey(host.name())) {
        throw GraphException.invalid("host '" + host.name() + "' is already in the shard map, at "
            + map.hosts().get(host.name()).primary());
      }
      for (Host other : map.hosts().values()) {
        if (other.primary().equals(host.primary())) {
          throw GraphException.invalid("host '" + other.name() + "' already has the primary " + host.primary());
        }
        if (other.replicas().contains(host.primary())) {
          throw GraphException.invalid(host.primary() + " is already a replica of host '" + other.name() + "'");
        }
      }
      Map<String, Host> hosts = new TreeMap<>(map.hosts());
      hosts.put(host.name(), host);
      return new ShardMap(map.version(), hosts, map.ranges(), map.open(), map.states());
    }

    @Override
    public String describe() {
      return "add host " + host.name() + " at " + host.primary();
    }
  }

  /**
   * A replica listed for a host, once it replicates the host's primary (the fleet's
   * {@code addReplica} seeds it first: listing one alone would name a server that holds nothing).
   * Refused when the host is not in the map or the address is already a primary or a replica.
   */
  record AddReplica(String host, String address) implements ShardMapChange {
    public AddReplica {
      if (host == null || address == null) {
        throw GraphException.invalid("adding a replica needs the host and the replica's address (host:port)");
      }
      new Host(host, address, java.util.List.of()); // checks the name and the address as a host's
    }

    @Override
    public ShardMap applyTo(ShardMap map) {
      Host primary = hostOf(map, host);
      for (Host other : map.hosts().values()) {
        if (other.primary().equals(address) || other.replicas().contains(address)) {
          throw GraphException.invalid(address + " is already " + (other.primary().equals(address) ? "the primary"
              : "a replica") + " of host '" + other.name() + "'");
        }
      }
      List<String> replicas = new ArrayList<>(primary.replicas());
      replicas.add(address);
      return withHost(map, new Host(host, primary.primary(), replicas));
    }

    @Override
    public String describe() {
      return "add replica " + address + " to host " + host;
    }
  }

  /** A replica no longer listed for its host. Refused when the host does not list it. */
  record RemoveReplica(String host, String address) implements ShardMapChange {
    public RemoveReplica {
      if (host == null || address == null) {
        throw GraphException.invalid("removing a replica needs the host and the replica's address (host:port)");
      }
    }

    @Override
    public ShardMap applyTo(ShardMap map) {
      Host primary = hostOf(map, host);
      if (!primary.replicas().contains(address)) {
        throw GraphException.notFound("host '" + host + "' has no replica " + address + "; it has "
            + primary.replicas());
      }
      List<String> replicas = new ArrayList<>(primary.replicas());
      replicas.remove(address);
      return withHost(map, new Host(host, primary.primary(), replicas));
    }

    @Override
    public String describe() {
      return "remove replica " + address + " from host " + host;
    }
  }

  /**
   * A failover's or a switchover's flip: the host's replica at {@code address} becomes its primary,
   * and the old primary leaves the host (it rejoins, if ever, as a replica the fleet adds). The
   * fleet promotes the server before the map names it. Refused when the host does not list the
   * replica.
   */
  record Promote(String host, String address) implements ShardMapChange {
    public Promote {
      if (host == null || address == null) {
        throw GraphException.invalid("promoting a replica needs the host and the replica's address (host:port)");
      }
    }

    @Override
    public ShardMap applyTo(ShardMap map) {
      Host primary = hostOf(map, host);
      if (!primary.replicas().contains(address)) {
        throw GraphException.invalid("host '" + host + "' has no replica " + address + " to promote; it has "
            + primary.replicas());
      }
      List<String> replicas = new ArrayList<>(primary.replicas());
      replicas.remove(address);
      return withHost(map, new Host(host, address, replicas));
    }

    @Override
    public String describe() {
      return "promote replica " + address + " of host " + host + " to its primary";
    }
  }

  private static Host hostOf(ShardMap map, String host) {
    Host found = map.hosts().get(host);
    if (found == null) {
      throw GraphException.invalid("host '" + host + "' is not in the shard map; it has " + map.hosts().keySet());
    }
    return found;
  }

  private static ShardMap withHost(ShardMap map, Host host) {
    Map<String, Host> hosts = new TreeMap<>(map.hosts());
    hosts.put(host.name(), host);
    return new ShardMap(map.version(), hosts, map.ranges(), map.open(), map.states());
  }

  /**
   * New shards on a host, directly after (or before) the shards the map holds, since ranges are
   * contiguous; with {@code acceptNewNodes} they join the open spans, so new nodes land on them.
   * A range adjoining one of the same host's is merged into it, and so are adjoining open spans.
   */
  record OpenShards(ShardSpan shards, String host, boolean acceptNewNodes) implements ShardMapChange {
    public OpenShards {
      if (shards == null || host == null) {
        throw GraphException.invalid("opening shards needs the shards (such as \"8-15\") and a host");
      }
    }

    @Override
    public ShardMap applyTo(ShardMap map) {
      if (!map.hosts().containsKey(host)) {
        throw GraphException.invalid("host '" + host + "' is not in the shard map; add it first");
      }
      for (ShardRange range : map.ranges()) {
        if (range.from() <= shards.to() && shards.from() <= range.to()) {
          throw GraphException.invalid("shards " + shards + " overlap " + range.from() + ".." + range.to()
              + " on " + range.host() + ", which the map already holds");
        }
      }
      ShardRange first = map.ranges().get(0);
      ShardRange last = map.ranges().get(map.ranges().size() - 1);
      if (shards.from() != last.to() + 1 && shards.to() != first.from() - 1) {
        throw GraphException.invalid("shards " + shards + " would leave a gap: the map holds " + first.from() + ".."
            + last.to() + ", so new shards start at " + (last.to() + 1)
            + (first.from() > 0 ? " or end at " + (first.from() - 1) : ""));
      }
      List<ShardRange> ranges = new ArrayList<>(map.ranges());
      ranges.add(new ShardRange(shards.from(), shards.to(), host));
      List<ShardSpan> open = new ArrayList<>(map.open());
      if (acceptNewNodes) {
        open.add(shards);
      }
      return new ShardMap(map.version(), map.hosts(), mergeRanges(ranges), mergeSpans(open), map.states());
    }

    @Override
    public boolean createsShards() {
      return true;
    }

    @Override
    public String describe() {
      return "open shards " + shards + " on " + host + (acceptNewNodes ? " for new nodes" : " (closed to new nodes)");
    }
  }

  /**
   * Every shard of a span set to one state: {@code read-only} before maintenance, {@code offline}
   * to stop serving a shard, {@code read-write} to return it. Every shard must be in the map.
   */
  record SetState(ShardSpan shards, ShardState state) implements ShardMapChange {
    public SetState {
      if (shards == null || state == null) {
        throw GraphException.invalid("setting a state needs the shards (such as \"4-5\") and a state");
      }
    }

    @Override
    public ShardMap applyTo(ShardMap map) {
      if (!map.contains(shards.from()) || !map.contains(shards.to())) {
        throw GraphException.invalid("shards " + shards + " are not all in the shard map");
      }
      ShardMap changed = map;
      for (int shard = shards.from(); shard <= shards.to(); shard++) {
        changed = changed.withState(shard, state);
      }
      return changed;
    }

    @Override
    public String describe() {
      return "set shards " + shards + " " + state.jsonName();
    }
  }

  /**
   * The last step of a move's cut-over, and only that: shards whose data a move has copied,
   * verified and caught up on {@code host} are routed there, read-write. Every shard of the span
   * must be in the map and on one other host.
   */
  record MoveShards(ShardSpan shards, String host) implements ShardMapChange {
    public MoveShards {
      if (shards == null || host == null) {
        throw GraphException.invalid("moving shards needs the shards (such as \"4-5\") and the host to move them to");
      }
    }

    @Override
    public ShardMap applyTo(ShardMap map) {
      if (!map.hosts().containsKey(host)) {
        throw GraphException.invalid("host '" + host + "' is not in the shard map; add it first");
      }
      String from = sourceOf(map, shards);
      if (from.equals(host)) {
        throw GraphException.invalid("shards " + shards + " are already on " + host);
      }
      List<ShardRange> ranges = new ArrayList<>();
      for (ShardRange range : map.ranges()) {
        if (range.to() < shards.from() || range.from() > shards.to()) {
          ranges.add(range);
          continue;
        }
        if (range.from() < shards.from()) {
          ranges.add(new ShardRange(range.from(), shards.from() - 1, range.host()));
        }
        ranges.add(new ShardRange(Math.max(range.from(), shards.from()), Math.min(range.to(), shards.to()), host));
        if (range.to() > shards.to()) {
          ranges.add(new ShardRange(shards.to() + 1, range.to(), range.host()));
        }
      }
      ShardMap moved = new ShardMap(map.version(), map.hosts(), mergeRanges(ranges), map.open(), map.states());
      for (int shard = shards.from(); shard <= shards.to(); shard++) {
        moved = moved.withState(shard, ShardState.READ_WRITE);
      }
      return moved;
    }

    /** The one host every shard of {@code shards} is on now; refuses a span not in the map or split over hosts. */
    public static String sourceOf(ShardMap map, ShardSpan shards) {
      String from = null;
      for (int shard = shards.from(); shard <= shards.to(); shard++) {
        String host = map.rangeOf(shard).map(ShardRange::host)
            .orElseThrow(() -> GraphException.invalid("shards " + shards + " are not all in the shard map"));
        if (from != null && !from.equals(host)) {
          throw GraphException.invalid("shards " + shards + " are on more than one host (" + from + ", " + host
              + "); move them a host at a time");
        }
        from = host;
      }
      return from;
    }

    @Override
    public String describe() {
      return "route shards " + shards + " to " + host + ", read-write";
    }
  }

  private static List<ShardRange> mergeRanges(List<ShardRange> ranges) {
    List<ShardRange> sorted = new ArrayList<>(ranges);
    sorted.sort((a, b) -> Integer.compare(a.from(), b.from()));
    List<ShardRange> merged = new ArrayList<>();
    for (ShardRange range : sorted) {
      ShardRange previous = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (previous != null && previous.host().equals(range.host()) && previous.to() + 1 == range.from()) {
        merged.set(merged.size() - 1, new ShardRange(previous.from(), range.to(), range.host()));
      } else {
        merged.add(range);
      }
    }
    return merged;
  }

  private static List<ShardSpan> mergeSpans(List<ShardSpan> spans) {
    List<ShardSpan> sorted = new ArrayList<>(spans);
    sorted.sort((a, b) -> Integer.compare(a.from(), b.from()));
    List<ShardSpan> merged = new ArrayList<>();
    for (ShardSpan span : sorted) {
      ShardSpan previous = merged.isEmpty() ? null : merged.get(merged.size() - 1);
      if (previous != null && previous.to() + 1 >= span.from()) {
        merged.set(merged.size() - 1, new ShardSpan(previous.from(), Math.max(previous.to(), span.to())));
      } else {
        merged.add(span);
      }
    }
    return merged;
  }
}
