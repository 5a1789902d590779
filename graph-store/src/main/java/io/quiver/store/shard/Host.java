package io.quiver.store.shard;

import io.quiver.core.GraphException;
import java.util.List;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * One MySQL/MariaDB primary and its replicas. Quiver writes the primary only, and reads it unless a
 * read says it tolerates bounded staleness: replicas lag, and lag makes strange bugs (Pinterest).
 * Replicas confirm the primary's writes, take over in a failover, and answer stale-tolerant reads
 * within a measured lag bound.
 *
 * @param name the host's name in the shard map, such as {@code h1}
 * @param primary {@code host:port} of the primary
 * @param replicas {@code host:port} of each replica
 */
public record Host(String name, String primary, List<String> replicas) {
  static final Pattern NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_.-]{0,63}");
  private static final Pattern ADDRESS = Pattern.compile("[A-Za-z0-9_.:\\[\\]-]+:[0-9]{1,5}");

  public Host {
    if (name == null || !NAME.matcher(name).matches()) {
      throw GraphException.invalid("host name '" + name + "' must match " + NAME.pattern());
    }
    requireAddress(name, primary);
    replicas = List.copyOf(Objects.requireNonNullElse(replicas, List.of()));
    replicas.forEach(replica -> requireAddress(name, replica));
  }

  public String primaryHost() {
    String host = primary.substring(0, primary.lastIndexOf(':'));
    return host.startsWith("[") ? host.substring(1, host.length() - 1) : host;
  }

  public int primaryPort() {
    return Integer.parseInt(primary.substring(primary.lastIndexOf(':') + 1));
  }

  private static void requireAddress(String name, String address) {
    if (address == null || !ADDRESS.matcher(address).matches()) {
      throw GraphException.invalid(
          "host '" + name + "' has address '" + address + "'; expected host:port");
    }
    int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
    if (port < 1 || port > 65535) {
      throw GraphException.invalid("host '" + name + "' has port " + port + " outside 1..65535");
    }
  }
}
