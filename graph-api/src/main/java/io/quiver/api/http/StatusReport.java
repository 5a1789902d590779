package io.quiver.api.http;

import java.util.List;

/**
 * What an operator looks at first ({@code GET /v1/admin/status}, {@code quiver status}), as one
 * value: the shard map's and the schema's versions, whether ZooKeeper answers, every host of the
 * map, and each cache's figures. {@link ServerStatus} makes it on a server; {@link AdminJson}
 * writes it and reads it back.
 */
public record StatusReport(long shardMapVersion, long schemaVersion, boolean zooKeeperUp, List<HostStatus> hosts,
    List<CacheStatus> caches) {

  public StatusReport {
    hosts = List.copyOf(hosts);
    caches = List.copyOf(caches);
  }

  /**
   * One host: its primary and the replicas that confirm its writes, each replica's lag as this server
   * measures it (milliseconds, -1 while unknown), whether it answers this server ({@code up}, {@code down: why}, {@code unknown} for
   * one not probed yet), its problem if it has one (null otherwise), how many shards it holds, its
   * pool, and its outbox — null for a host that holds no shards, {@link OutboxStatus#UNKNOWN} for
   * one another server drains (or whose figures did not come in time).
   */
  public record HostStatus(String name, String primary, List<String> replicas, java.util.Map<String, Long> replicaLagMs,
      String state, String problem, int shards, int poolConnections, OutboxStatus outbox) {
    public HostStatus {
      replicas = List.copyOf(replicas);
      replicaLagMs = java.util.Collections.unmodifiableMap(new java.util.LinkedHashMap<>(replicaLagMs));
    }
  }

  /** A host's outbox: entries pending, parked, and the oldest pending one's age. */
  public record OutboxStatus(boolean known, long pending, long parked, long oldestPendingAgeMs) {
    /** The outbox of a host this server does not drain: never left out, never guessed. */
    public static final OutboxStatus UNKNOWN = new OutboxStatus(false, 0, 0, 0);

    public static OutboxStatus of(long pending, long parked, long oldestPendingAgeMs) {
      return new OutboxStatus(true, pending, parked, oldestPendingAgeMs);
    }
  }

  /** One cache's figures; {@code hitRatio} rounded to four places. */
  public record CacheStatus(String cache, long hits, long misses, double hitRatio, long entries, long weightBytes,
      long evictions) {}
}
