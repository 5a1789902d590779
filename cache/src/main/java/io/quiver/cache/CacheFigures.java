package io.quiver.cache;

/** One cache's figures, for {@code /metrics}. Weight is in bytes (estimated). */
public record CacheFigures(String cache, long hits, long misses, long evictions, long weightBytes, long entries,
    long invalidationsSent, long invalidationsReceived) {

  public double hitRatio() {
    long total = hits + misses;
    return total == 0 ? 0 : (double) hits / total;
  }
}
