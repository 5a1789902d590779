package io.quiver.benchmarks.workload;

import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * One scrape of a Quiver server's {@code GET /metrics}, as the benchmark reads it from outside the
 * server's JVM: requests served per operation, each cache's figures, what waits in the outboxes.
 */
record ServerMetrics(Map<String, Double> requests, Map<String, CacheCount> caches, double outboxPending,
    int outboxHosts) {

  /** One cache's counters at the scrape. */
  record CacheCount(double hits, double misses, double entries) {}

  private static final Pattern SAMPLE = Pattern.compile("^(\\w+)(?:\\{([^}]*)})? ([-0-9.E+]+|NaN)$");
  private static final Pattern LABEL = Pattern.compile("(\\w+)=\"([^\"]*)\"");

  static ServerMetrics parse(String text) {
    Map<String, Double> requests = new HashMap<>();
    Map<String, double[]> caches = new HashMap<>();
    double pending = 0;
    int hosts = 0;
    for (String line : text.split("\n")) {
      Matcher sample = SAMPLE.matcher(line.trim());
      if (!sample.matches()) {
        continue;
      }
      Map<String, String> labels = labels(sample.group(2));
      double value = Double.parseDouble(sample.group(3));
      switch (sample.group(1)) {
        case "quiver_requests_seconds_count" -> requests.merge(labels.get("operation"), value, Double::sum);
        case "quiver_cache_hits_total" -> cache(caches, labels)[0] = value;
        case "quiver_cache_misses_total" -> cache(caches, labels)[1] = value;
        case "quiver_cache_entries" -> cache(caches, labels)[2] = value;
        case "quiver_outbox_pending" -> {
          pending += value;
          hosts++;
        }
        default -> { }
      }
    }
    Map<String, CacheCount> counts = new HashMap<>();
    caches.forEach((name, figures) -> counts.put(name, new CacheCount(figures[0], figures[1], figures[2])));
    return new ServerMetrics(requests, counts, pending, hosts);
  }

  private static double[] cache(Map<String, double[]> caches, Map<String, String> labels) {
    return caches.computeIfAbsent(labels.get("cache"), name -> new double[3]);
  }

  private static Map<String, String> labels(String text) {
    Map<String, String> labels = new HashMap<>();
    if (text != null) {
      Matcher label = LABEL.matcher(text);
      while (label.find()) {
        labels.put(label.group(1), label.group(2));
      }
    }
    return labels;
  }

  /** Whether every host answered and no outbox holds an entry. */
  boolean drained(int hosts) {
    return outboxHosts >= hosts && outboxPending == 0;
  }

  /** A cache's hit ratio between an earlier scrape and this one, with its lookups. */
  String hitRatioSince(ServerMetrics earlier, String cache) {
    return String.format(java.util.Locale.ROOT, "%s hit ratio %.3f (%.0f lookups)", cache,
        hitRatioValueSince(earlier, cache), lookupsSince(earlier, cache));
  }

  /** A cache's hit ratio between an earlier scrape and this one; 0 without lookups. */
  double hitRatioValueSince(ServerMetrics earlier, String cache) {
    double lookups = lookupsSince(earlier, cache);
    return lookups == 0 ? 0.0 : (caches.get(cache).hits() - before(earlier, cache).hits()) / lookups;
  }

  private double lookupsSince(ServerMetrics earlier, String cache) {
    CacheCount now = caches.get(cache);
    CacheCount then = before(earlier, cache);
    return now.hits() - then.hits() + now.misses() - then.misses();
  }

  private static CacheCount before(ServerMetrics earlier, String cache) {
    return earlier.caches.getOrDefault(cache, new CacheCount(0, 0, 0));
  }
}
