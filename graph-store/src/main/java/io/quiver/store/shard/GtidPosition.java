package io.quiver.store.shard;

import io.quiver.core.GraphException;
import java.util.Map;
import java.util.TreeMap;

/**
 * A MariaDB GTID position ({@code @@gtid_binlog_pos}, {@code @@gtid_slave_pos}, a channel's
 * {@code Gtid_IO_Pos}): per replication domain, the sequence number of the last transaction, as
 * text {@code domain-server-sequence,…}. Within a domain sequence numbers only grow, whichever
 * server wrote them (a promoted replica continues its old primary's), so one position holds all of
 * another's transactions when each of the other's domains is at least as far along in it
 * ({@link #covers}). The server id is kept out: it says who wrote the last transaction, not how far
 * the log goes.
 *
 * @param sequences the last sequence number of each domain
 */
public record GtidPosition(Map<Long, Long> sequences) {
  /** The position of a server that has written or applied nothing. */
  public static final GtidPosition EMPTY = new GtidPosition(Map.of());

  public GtidPosition {
    sequences = Map.copyOf(sequences);
  }

  /**
   * Reads MariaDB's text form; null or blank is {@link #EMPTY}.
   *
   * @throws GraphException INVALID_ARGUMENT when it is not {@code domain-server-sequence,…}
   */
  public static GtidPosition parse(String text) {
    Map<Long, Long> sequences = new TreeMap<>();
    gtids(text, (domain, server, sequence) -> sequences.merge(domain, sequence, Math::max));
    return new GtidPosition(sequences);
  }

  /** One GTID of a list: its domain, server and sequence number. */
  @FunctionalInterface
  private interface Gtid {
    void take(long domain, long server, long sequence);
  }

  /**
   * Each GTID of MariaDB's text form ({@code domain-server-sequence,…}; null or blank holds none),
   * handed to {@code each}.
   *
   * @throws GraphException INVALID_ARGUMENT for one that is not {@code domain-server-sequence}
   */
  private static void gtids(String text, Gtid each) {
    if (text == null || text.isBlank()) {
      return;
    }
    for (String gtid : text.split(",")) {
      String trimmed = gtid.trim();
      if (trimmed.isEmpty()) {
        continue;
      }
      String[] parts = trimmed.split("-");
      try {
        if (parts.length != 3) {
          throw new NumberFormatException();
        }
        each.take(Long.parseLong(parts[0]), Long.parseLong(parts[1]), Long.parseLong(parts[2]));
      } catch (NumberFormatException e) {
        throw GraphException.invalid("'" + trimmed + "' is not a GTID (domain-server-sequence)");
      }
    }
  }

  /** Whether every transaction {@code other} holds is in this position too. */
  public boolean covers(GtidPosition other) {
    for (Map.Entry<Long, Long> domain : other.sequences.entrySet()) {
      if (sequences.getOrDefault(domain.getKey(), 0L) < domain.getValue()) {
        return false;
      }
    }
    return true;
  }

  /**
   * How many transactions the position holds, summed over its domains: of two positions of one
   * primary's replicas (which share its domains), the larger is further along.
   */
  public long transactions() {
    return sequences.values().stream().mapToLong(Long::longValue).sum();
  }

  /**
   * Whether a binary log whose {@code @@gtid_binlog_state} is {@code state} holds every transaction
   * one whose state is {@code other} holds. A state keeps the last sequence number of each domain
   * <em>and server</em>: a server that wrote transactions of its own after its replica was promoted
   * has a sequence number for itself the new primary lacks, however far the new primary went on.
   */
  public static boolean stateCovers(String state, String other) {
    Map<String, Long> have = bySource(state);
    for (Map.Entry<String, Long> entry : bySource(other).entrySet()) {
      if (have.getOrDefault(entry.getKey(), 0L) < entry.getValue()) {
        return false;
      }
    }
    return true;
  }

  /** A state's last sequence number of each {@code domain-server}. */
  private static Map<String, Long> bySource(String state) {
    Map<String, Long> last = new TreeMap<>();
    gtids(state, (domain, server, sequence) -> last.merge(domain + "-" + server, sequence, Math::max));
    return last;
  }
}
