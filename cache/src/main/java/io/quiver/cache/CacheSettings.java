package io.quiver.cache;

import io.quiver.core.GraphException;
import java.time.Duration;

/**
 * How the caches are sized and kept.
 *
 * @param enabled false sends every read to MySQL (for benchmarks and debugging)
 * @param nodeMaxBytes the node cache's bound, by estimated size of the nodes' data
 * @param edgeWindow how many of the newest edges of a list are kept (Netlog fetched 100 to serve 20)
 * @param edgeMaxBytes the edge caches' bound, half for lists' windows ({@link #windowMaxBytes()}),
 *     half for single edges read by target ({@link #pointMaxBytes()})
 * @param valueTtl the safety net for a change another server failed to announce
 * @param peersPath where servers register for invalidations, in ZooKeeper
 * @param advertiseHost the address other servers send this one its invalidations at
 * @param staleBound how stale a cached read may be when invalidations fail
 *     ({@link CacheInvalidations}): a server that has lost ZooKeeper this long stops answering
 *     from its cache until it rejoins (and clears it then); a peer silent this long, its
 *     heartbeats included, clears the cache once per bound while it stays silent
 */
public record CacheSettings(boolean enabled, long nodeMaxBytes, int edgeWindow, long edgeMaxBytes,
    Duration valueTtl, String peersPath, String advertiseHost, Duration staleBound) {

  public static final long DEFAULT_NODE_MAX_BYTES = 256L << 20;
  public static final int DEFAULT_EDGE_WINDOW = 100;
  public static final long DEFAULT_EDGE_MAX_BYTES = 128L << 20;
  public static final Duration DEFAULT_VALUE_TTL = Duration.ofMinutes(5);
  public static final String DEFAULT_PEERS_PATH = "/quiver/cache-peers";
  public static final Duration ABSENT_TTL = Duration.ofSeconds(2);
  public static final Duration INVALIDATED_TTL = Duration.ofSeconds(10);
  public static final Duration DEFAULT_STALE_BOUND = Duration.ofSeconds(2);

  public CacheSettings {
    if (nodeMaxBytes < 1 || edgeMaxBytes < 1) {
      throw GraphException.invalid("cache sizes must be positive");
    }
    if (edgeWindow < 1 || edgeWindow > 1000) {
      throw GraphException.invalid("cache.edgeWindow must be within 1..1000, got " + edgeWindow);
    }
    if (peersPath == null || !peersPath.startsWith("/")) {
      throw GraphException.invalid("cache.peersPath must be an absolute znode path");
    }
    if (staleBound == null || staleBound.toMillis() < 100) {
      throw GraphException.invalid("cache.staleBoundMs must be at least 100, got "
          + (staleBound == null ? null : staleBound.toMillis()));
    }
  }

  /** The edge-window cache's bound: half of {@code edgeMaxBytes}. */
  public long windowMaxBytes() {
    return Math.max(1, edgeMaxBytes / 2);
  }

  /** The single-edge cache's bound: the other half of {@code edgeMaxBytes}. */
  public long pointMaxBytes() {
    return Math.max(1, edgeMaxBytes - windowMaxBytes());
  }

  public static CacheSettings defaults() {
    return new CacheSettings(true, DEFAULT_NODE_MAX_BYTES, DEFAULT_EDGE_WINDOW, DEFAULT_EDGE_MAX_BYTES,
        DEFAULT_VALUE_TTL, DEFAULT_PEERS_PATH, "127.0.0.1", DEFAULT_STALE_BOUND);
  }

  public CacheSettings withPeersPath(String path) {
    return new CacheSettings(enabled, nodeMaxBytes, edgeWindow, edgeMaxBytes, valueTtl, path, advertiseHost,
        staleBound);
  }

  public CacheSettings disabled() {
    return new CacheSettings(false, nodeMaxBytes, edgeWindow, edgeMaxBytes, valueTtl, peersPath, advertiseHost,
        staleBound);
  }

  public CacheSettings withStaleBound(Duration bound) {
    return new CacheSettings(enabled, nodeMaxBytes, edgeWindow, edgeMaxBytes, valueTtl, peersPath, advertiseHost,
        bound);
  }
}
