package io.quiver.store.internal.sql;

import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.BiConsumer;
import java.util.function.BiPredicate;
import java.util.function.Function;

/**
 * One value per host of the shard map — a pool ({@link HostPools}), a probe ({@link HostHealth}) —
 * kept in line with the map as it changes: a host that appears gets a value, one whose primary
 * moved gets a new value and its old one retired, one that leaves has its value retired. The one
 * place that rule lives. Not thread-safe: its owner synchronizes.
 */
final class PerHost<T> {
  private record Entry<T>(Host host, T value) {}

  private final BiPredicate<Host, Host> same;
  private final Function<Host, T> create;
  private final BiConsumer<T, String> retire;
  private final Map<String, Entry<T>> entries = new TreeMap<>();

  /**
   * Values that follow each host's primary: a host whose primary moved gets a new one.
   *
   * @param create a value for a host
   * @param retire what to do with a value no longer wanted, and why (its host moved or left)
   */
  PerHost(Function<Host, T> create, BiConsumer<T, String> retire) {
    this((before, after) -> before.primary().equals(after.primary()), create, retire);
  }

  /**
   * @param same whether a host's value still serves the host as the map now lists it
   * @param create a value for a host
   * @param retire what to do with a value no longer wanted, and why (its host changed or left)
   */
  PerHost(BiPredicate<Host, Host> same, Function<Host, T> create, BiConsumer<T, String> retire) {
    this.same = same;
    this.create = create;
    this.retire = retire;
  }

  /** Brings the values in line with the map's hosts. */
  void apply(ShardMap map) {
    for (Host host : map.hosts().values()) {
      Entry<T> current = entries.get(host.name());
      if (current == null || !same.test(current.host(), host)) {
        entries.put(host.name(), new Entry<>(host, create.apply(host)));
        if (current != null) {
          retire.accept(current.value(), "host " + host.name() + " changed from " + describe(current.host()) + " to "
              + describe(host));
        }
      }
    }
    List<String> gone = new ArrayList<>(entries.keySet());
    gone.removeAll(map.hosts().keySet());
    for (String name : gone) {
      retire.accept(entries.remove(name).value(), "host " + name + " left the shard map");
    }
  }

  private static String describe(Host host) {
    return host.replicas().isEmpty() ? host.primary() : host.primary() + " with replicas " + host.replicas();
  }

  /** Each host's value, by host name in name order. */
  Map<String, T> values() {
    Map<String, T> values = new LinkedHashMap<>();
    entries.forEach((name, entry) -> values.put(name, entry.value()));
    return values;
  }

  /** Every value, forgotten: for closing. */
  List<T> clear() {
    List<T> values = new ArrayList<>(values().values());
    entries.clear();
    return values;
  }
}
