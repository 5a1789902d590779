package io.quiver.api.config;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.cache.CacheSettings;
import io.quiver.fleet.FailoverSettings;
import io.quiver.fleet.ReplicaAcks;
import io.quiver.schema.SchemaStore;
import io.quiver.store.ApplierSettings;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.PoolSettings;
import io.quiver.store.ReadTokenSettings;
import io.quiver.store.ReplicaReadSettings;
import io.quiver.store.shard.ShardMapStore;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Comparator;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Everything a Quiver server is told. Defaults are constants with their units; a bad value fails
 * at start with a message naming it.
 *
 * <pre>{@code
 * {"http":      {"port": 8080, "bodyLimitBytes": 1048576},
 *  "zooKeeper": {"connect": "zk1:2181,zk2:2181", "shardMapPath": "/quiver/shard-map"},
 *  "mysql":     {"user": "quiver", "password": "…", "poolSize": 16, "waitQueue": 256,
 *                "connectTimeoutMs": 500, "acquireTimeoutMs": 2000, "statementTimeoutMs": 3000,
 *                "downAfterMs": 1000},
 *  "outbox":    {"tombstoneGraceSeconds": 604800, "maxAttempts": 10},
 *  "cache":     {"enabled": true, "nodeMaxBytes": 268435456, "edgeWindow": 100, "advertiseHost": "10.0.0.5"},
 *  "admin":     {"token": "…at least 16 characters…"},
 *  "replication": {"withoutAck": "refuse", "ackTimeoutMs": 1000, "readMaxLagMs": 1000, "hedgeAfterMs": 50},
 *  "failover":  {"enabled": true, "detectAfterMs": 3000},
 *  "changes":   {"enabled": true, "retentionHours": 168, "maxPerShard": 10000000, "source": "writes"},
 *  "consistency": {"tokenWaitMs": 1000},
 *  "schemaFile": "/etc/quiver/schema.json"}
 * }</pre>
 */
public record QuiverConfig(Http http, ZooKeeper zooKeeper, PoolSettings mysql, ApplierSettings outbox,
    CacheSettings cache, Path schemaFile, String adminToken, ReplicaAcks replication, FailoverSettings failover,
    ReplicaReadSettings replicaReads, ChangeLogSettings changeLog, ReadTokenSettings readTokens) {
  public static final int DEFAULT_PORT = 8080;
  /** 1 MiB, as the API promises. */
  public static final long DEFAULT_BODY_LIMIT_BYTES = 1 << 20;
  public static final Duration DEFAULT_ZK_SESSION_TIMEOUT = Duration.ofSeconds(15);
  public static final Duration DEFAULT_ZK_CONNECT_TIMEOUT = Duration.ofSeconds(15);

  public QuiverConfig {
    Objects.requireNonNull(http, "http");
    Objects.requireNonNull(zooKeeper, "zooKeeper");
    Objects.requireNonNull(mysql, "mysql");
    Objects.requireNonNull(outbox, "outbox");
    Objects.requireNonNull(cache, "cache");
    Objects.requireNonNull(replication, "replication");
    Objects.requireNonNull(failover, "failover");
    Objects.requireNonNull(replicaReads, "replicaReads");
    Objects.requireNonNull(changeLog, "changeLog");
    Objects.requireNonNull(readTokens, "readTokens");
    if (adminToken != null && adminToken.length() < 16) {
      throw new IllegalArgumentException("adminToken must be at least 16 characters");
    }
  }

  public static final Duration DEFAULT_REQUEST_TIMEOUT = Duration.ofSeconds(10);
  /** How long a connection may take to send a request's headers, or wait idle for its next request. */
  public static final Duration DEFAULT_HEADER_TIMEOUT = Duration.ofSeconds(10);
  /** A connection silent this long, mid-request or not, is closed. */
  public static final Duration DEFAULT_IDLE_TIMEOUT = Duration.ofSeconds(60);
  /** Room for getNodes with its 500 IDs of up to 20 digits in the request line. */
  public static final int DEFAULT_MAX_REQUEST_LINE_BYTES = 16 * 1024;

  /**
   * @param port the HTTP port; 0 picks a free one
   * @param requestTimeout a request not answered by then gets 503
   */
  public record Http(int port, long bodyLimitBytes, Duration requestTimeout, Duration headerTimeout,
      Duration idleTimeout, int maxRequestLineBytes) {
    public Http(int port, long bodyLimitBytes) {
      this(port, bodyLimitBytes, DEFAULT_REQUEST_TIMEOUT);
    }

    public Http(int port, long bodyLimitBytes, Duration requestTimeout) {
      this(port, bodyLimitBytes, requestTimeout, DEFAULT_HEADER_TIMEOUT, DEFAULT_IDLE_TIMEOUT,
          DEFAULT_MAX_REQUEST_LINE_BYTES);
    }

    /** The same server with other header and idle timeouts. */
    public Http withTimeouts(Duration header, Duration idle) {
      return new Http(port, bodyLimitBytes, requestTimeout, header, idle, maxRequestLineBytes);
    }

    public Http {
      if (port < 0 || port > 65535) {
        throw new IllegalArgumentException("http.port must be within 0..65535, got " + port);
      }
      if (bodyLimitBytes < 1024) {
        throw new IllegalArgumentException("http.bodyLimitBytes must be at least 1024, got " + bodyLimitBytes);
      }
      if (requestTimeout == null || requestTimeout.isNegative() || requestTimeout.isZero()) {
        throw new IllegalArgumentException("http.requestTimeoutMs must be positive, got " + requestTimeout);
      }
      if (headerTimeout == null || headerTimeout.toMillis() < 1) {
        throw new IllegalArgumentException("http.headerTimeoutMs must be positive, got " + headerTimeout);
      }
      if (idleTimeout == null || idleTimeout.toSeconds() < 1) {
        throw new IllegalArgumentException("http.idleTimeoutSeconds must be at least 1, got " + idleTimeout);
      }
      if (maxRequestLineBytes < 4096) {
        throw new IllegalArgumentException("http.maxRequestLineBytes must be at least 4096, got " + maxRequestLineBytes);
      }
    }
  }

  /**
   * @param connectTimeout how long a server's start waits to reach ZooKeeper before it fails,
   *     naming the ensemble
   */
  public record ZooKeeper(String connect, String shardMapPath, String schemaPath, Duration sessionTimeout,
      Duration connectTimeout) {
    public ZooKeeper(String connect, String shardMapPath, String schemaPath, Duration sessionTimeout) {
      this(connect, shardMapPath, schemaPath, sessionTimeout, DEFAULT_ZK_CONNECT_TIMEOUT);
    }

    public ZooKeeper {
      if (connect == null || connect.isBlank()) {
        throw new IllegalArgumentException("zooKeeper.connect must name at least one host:port");
      }
      if (shardMapPath == null || !shardMapPath.startsWith("/")) {
        throw new IllegalArgumentException("zooKeeper.shardMapPath must be an absolute znode path, got " + shardMapPath);
      }
      if (schemaPath == null || !schemaPath.startsWith("/")) {
        throw new IllegalArgumentException("zooKeeper.schemaPath must be an absolute znode path, got " + schemaPath);
      }
      Objects.requireNonNull(sessionTimeout, "sessionTimeout");
      if (connectTimeout == null || connectTimeout.isNegative() || connectTimeout.isZero()) {
        throw new IllegalArgumentException("zooKeeper.connectTimeoutMs must be positive, got " + connectTimeout);
      }
    }
  }

  /**
   * A configuration whose writes to hosts with replicas wait as {@link ReplicaAcks#defaults()} says,
   * whose server takes part in failovers with {@link FailoverSettings#defaults()}, and whose
   * stale-tolerant reads use replicas as {@link ReplicaReadSettings#defaults()} says.
   */
  public QuiverConfig(Http http, ZooKeeper zooKeeper, PoolSettings mysql, ApplierSettings outbox, CacheSettings cache,
      Path schemaFile, String adminToken) {
    this(http, zooKeeper, mysql, outbox, cache, schemaFile, adminToken, ReplicaAcks.defaults(),
        FailoverSettings.defaults(), ReplicaReadSettings.defaults(), ChangeLogSettings.defaults(),
        ReadTokenSettings.defaults());
  }

  public QuiverConfig withPort(int port) {
    return new QuiverConfig(new Http(port, http.bodyLimitBytes(), http.requestTimeout(), http.headerTimeout(),
        http.idleTimeout(), http.maxRequestLineBytes()), zooKeeper, mysql, outbox, cache, schemaFile, adminToken,
        replication, failover, replicaReads, changeLog, readTokens);
  }

  /** The same configuration with the shards' change logs kept as {@code settings} says. */
  public QuiverConfig withChangeLog(ChangeLogSettings settings) {
    return new QuiverConfig(http, zooKeeper, mysql, outbox, cache, schemaFile, adminToken, replication, failover,
        replicaReads, settings, readTokens);
  }

  public static QuiverConfig load(Path file) {
    try {
      return parse(new ObjectMapper().readTree(Files.readAllBytes(file)));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read configuration " + file + ": " + e.getMessage(), e);
    }
  }

  /** Every key a configuration may hold, by section; "" is the top level. */
  private static final Map<String, Set<String>> KEYS = Map.ofEntries(
      Map.entry("", Set.of("http", "zooKeeper", "mysql", "outbox", "cache", "admin", "schemaFile", "replication", "failover",
          "changes", "consistency")),
      Map.entry("http", Set.of("port", "bodyLimitBytes", "requestTimeoutMs", "headerTimeoutMs", "idleTimeoutSeconds",
          "maxRequestLineBytes")),
      Map.entry("zooKeeper", Set.of("connect", "shardMapPath", "schemaPath", "sessionTimeoutMs", "connectTimeoutMs")),
      Map.entry("mysql", Set.of("user", "password", "poolSize", "waitQueue", "connectTimeoutMs", "acquireTimeoutMs",
          "statementCacheSize", "pipeliningLimit", "statementTimeoutMs", "downAfterMs", "writeTransactions")),
      Map.entry("outbox", Set.of("leasePath", "batchSize", "idleDelayMs", "busyPauseMs", "maxAttempts", "maxBackoffMs", "tombstoneGraceSeconds",
          "gcIntervalSeconds")),
      Map.entry("cache", Set.of("enabled", "nodeMaxBytes", "edgeWindow", "edgeMaxBytes", "valueTtlSeconds", "peersPath",
          "advertiseHost", "staleBoundMs")),
      Map.entry("admin", Set.of("token")),
      Map.entry("replication", Set.of("withoutAck", "ackTimeoutMs", "readMaxLagMs", "hedgeAfterMs", "lagProbeEveryMs",
          "replicaPoolSize")),
      Map.entry("failover", Set.of("enabled", "detectAfterMs", "probeEveryMs", "fenceTimeoutMs")),
      Map.entry("changes", Set.of("enabled", "retentionHours", "maxPerShard", "source")),
      Map.entry("consistency", Set.of("tokenWaitMs")));

  /**
   * Refuses a key the configuration does not have, naming the nearest one it does: a misspelt
   * setting silently falling back to its default is how a production server ends up with a
   * pool of 16 instead of 160.
   */
  private static void requireKnownKeys(JsonNode root) {
    KEYS.forEach((section, known) -> {
      JsonNode node = section.isEmpty() ? root : root.path(section);
      if (node.isMissingNode() || node.isNull()) {
        return;
      }
      if (!node.isObject()) {
        throw new IllegalArgumentException("'" + section + "' must be a JSON object");
      }
      for (Iterator<String> names = node.fieldNames(); names.hasNext(); ) {
        String name = names.next();
        if (!known.contains(name)) {
          String where = section.isEmpty() ? name : section + "." + name;
          String nearest = known.stream().min(Comparator.comparingInt(candidate -> distance(name, candidate))).orElseThrow();
          throw new IllegalArgumentException("unknown configuration key '" + where + "'; did you mean '"
              + (section.isEmpty() ? nearest : section + "." + nearest) + "'?");
        }
      }
    });
  }

  /** Edit distance, case-insensitive: how far a misspelt key is from a known one. */
  static int distance(String a, String b) {
    String x = a.toLowerCase(java.util.Locale.ROOT);
    String y = b.toLowerCase(java.util.Locale.ROOT);
    int[] previous = new int[y.length() + 1];
    int[] current = new int[y.length() + 1];
    for (int j = 0; j <= y.length(); j++) {
      previous[j] = j;
    }
    for (int i = 1; i <= x.length(); i++) {
      current[0] = i;
      for (int j = 1; j <= y.length(); j++) {
        int substitution = previous[j - 1] + (x.charAt(i - 1) == y.charAt(j - 1) ? 0 : 1);
        current[j] = Math.min(substitution, Math.min(previous[j] + 1, current[j - 1] + 1));
      }
      int[] swap = previous;
      previous = current;
      current = swap;
    }
    return previous[y.length()];
  }

  public static QuiverConfig parse(JsonNode root) {
    requireKnownKeys(root);
    JsonNode http = root.path("http");
    JsonNode zk = root.path("zooKeeper");
    JsonNode mysql = root.path("mysql");
    JsonNode outbox = root.path("outbox");
    ApplierSettings defaults = ApplierSettings.defaults();
    JsonNode cache = root.path("cache");
    CacheSettings cacheDefaults = CacheSettings.defaults();
    return new QuiverConfig(
        new Http(http.path("port").asInt(DEFAULT_PORT), http.path("bodyLimitBytes").asLong(DEFAULT_BODY_LIMIT_BYTES),
            Duration.ofMillis(http.path("requestTimeoutMs").asLong(DEFAULT_REQUEST_TIMEOUT.toMillis())),
            Duration.ofMillis(http.path("headerTimeoutMs").asLong(DEFAULT_HEADER_TIMEOUT.toMillis())),
            Duration.ofSeconds(http.path("idleTimeoutSeconds").asLong(DEFAULT_IDLE_TIMEOUT.toSeconds())),
            http.path("maxRequestLineBytes").asInt(DEFAULT_MAX_REQUEST_LINE_BYTES)),
        new ZooKeeper(zk.path("connect").asText(null), zk.path("shardMapPath").asText(ShardMapStore.DEFAULT_PATH),
            zk.path("schemaPath").asText(SchemaStore.DEFAULT_PATH),
            Duration.ofMillis(zk.path("sessionTimeoutMs").asLong(DEFAULT_ZK_SESSION_TIMEOUT.toMillis())),
            Duration.ofMillis(zk.path("connectTimeoutMs").asLong(DEFAULT_ZK_CONNECT_TIMEOUT.toMillis()))),
        new PoolSettings(
            mysql.path("user").asText("root"),
            mysql.path("password").asText(""),
            mysql.path("poolSize").asInt(PoolSettings.DEFAULT_MAX_SIZE),
            mysql.path("waitQueue").asInt(PoolSettings.DEFAULT_MAX_WAIT_QUEUE),
            Duration.ofMillis(mysql.path("connectTimeoutMs").asLong(PoolSettings.DEFAULT_CONNECT_TIMEOUT.toMillis())),
            Duration.ofMillis(mysql.path("acquireTimeoutMs").asLong(PoolSettings.DEFAULT_ACQUIRE_TIMEOUT.toMillis())),
            mysql.path("statementCacheSize").asInt(PoolSettings.DEFAULT_STATEMENT_CACHE_SIZE),
            mysql.path("pipeliningLimit").asInt(PoolSettings.DEFAULT_PIPELINING_LIMIT),
            Duration.ofMillis(mysql.path("statementTimeoutMs").asLong(PoolSettings.DEFAULT_STATEMENT_TIMEOUT.toMillis())),
            Duration.ofMillis(mysql.path("downAfterMs").asLong(PoolSettings.DEFAULT_DOWN_AFTER.toMillis())),
            mysql.path("writeTransactions").asInt(PoolSettings.DEFAULT_WRITE_TRANSACTIONS)),
        new ApplierSettings(
            outbox.path("leasePath").asText(defaults.leasePath()),
            outbox.path("batchSize").asInt(defaults.batchSize()),
            Duration.ofMillis(outbox.path("idleDelayMs").asLong(defaults.idleDelay().toMillis())),
            outbox.path("maxAttempts").asInt(defaults.maxAttempts()),
            Duration.ofMillis(outbox.path("maxBackoffMs").asLong(defaults.maxBackoff().toMillis())),
            Duration.ofSeconds(outbox.path("tombstoneGraceSeconds").asLong(defaults.tombstoneGrace().toSeconds())),
            Duration.ofSeconds(outbox.path("gcIntervalSeconds").asLong(defaults.gcInterval().toSeconds())),
            Duration.ofMillis(outbox.path("busyPauseMs").asLong(defaults.busyPause().toMillis()))),
        new CacheSettings(
            cache.path("enabled").asBoolean(true),
            cache.path("nodeMaxBytes").asLong(cacheDefaults.nodeMaxBytes()),
            cache.path("edgeWindow").asInt(cacheDefaults.edgeWindow()),
            cache.path("edgeMaxBytes").asLong(cacheDefaults.edgeMaxBytes()),
            Duration.ofSeconds(cache.path("valueTtlSeconds").asLong(cacheDefaults.valueTtl().toSeconds())),
            cache.path("peersPath").asText(cacheDefaults.peersPath()),
            cache.path("advertiseHost").asText(cacheDefaults.advertiseHost()),
            Duration.ofMillis(cache.path("staleBoundMs").asLong(cacheDefaults.staleBound().toMillis()))),
        root.hasNonNull("schemaFile") ? Path.of(root.get("schemaFile").asText()) : null,
        root.path("admin").path("token").asText(null),
        replication(root.path("replication")),
        failover(root.path("failover")),
        replicaReads(root.path("replication")),
        changeLog(root.path("changes")),
        new ReadTokenSettings(Duration.ofMillis(root.path("consistency").path("tokenWaitMs")
            .asLong(ReadTokenSettings.DEFAULT_BOUND.toMillis()))));
  }

  /**
   * {@code {"enabled": true, "retentionHours": 168, "maxPerShard": 10000000, "source": "writes"}}:
   * each shard's change log, written by the writes or ({@code "binlog"}) from each host's binary log.
   */
  private static ChangeLogSettings changeLog(JsonNode changes) {
    ChangeLogSettings.Source parsed = oneOf("changes.source", changes.path("source").asText("writes"),
        List.of(Map.entry("writes", ChangeLogSettings.Source.WRITES),
            Map.entry("binlog", ChangeLogSettings.Source.BINARY_LOG)));
    return new ChangeLogSettings(changes.path("enabled").asBoolean(true),
        Duration.ofHours(changes.path("retentionHours").asLong(ChangeLogSettings.DEFAULT_RETENTION.toHours())),
        changes.path("maxPerShard").asLong(ChangeLogSettings.DEFAULT_MAX_PER_SHARD),
        ChangeLogSettings.DEFAULT_TRIM_EVERY, parsed);
  }

  /**
   * {@code {"readMaxLagMs": 1000, "hedgeAfterMs": 50, "lagProbeEveryMs": 100, "replicaPoolSize": 8}}, in
   * the replication section: how stale-tolerant reads use replicas.
   */
  private static ReplicaReadSettings replicaReads(JsonNode replication) {
    return new ReplicaReadSettings(
        Duration.ofMillis(replication.path("readMaxLagMs").asLong(ReplicaReadSettings.DEFAULT_MAX_LAG.toMillis())),
        Duration.ofMillis(replication.path("hedgeAfterMs").asLong(ReplicaReadSettings.DEFAULT_HEDGE_AFTER.toMillis())),
        Duration.ofMillis(replication.path("lagProbeEveryMs")
            .asLong(ReplicaReadSettings.DEFAULT_PROBE_EVERY.toMillis())),
        replication.path("replicaPoolSize").asInt(ReplicaReadSettings.DEFAULT_POOL_SIZE));
  }

  /** {@code {"enabled": true, "detectAfterMs": 3000, "probeEveryMs": 500, "fenceTimeoutMs": 5000}}. */
  private static FailoverSettings failover(JsonNode failover) {
    return new FailoverSettings(failover.path("enabled").asBoolean(true),
        Duration.ofMillis(failover.path("detectAfterMs").asLong(FailoverSettings.DEFAULT_DETECT_AFTER.toMillis())),
        Duration.ofMillis(failover.path("probeEveryMs").asLong(FailoverSettings.DEFAULT_PROBE_EVERY.toMillis())),
        Duration.ofMillis(failover.path("fenceTimeoutMs").asLong(FailoverSettings.DEFAULT_FENCE_TIMEOUT.toMillis())));
  }

  /** {@code {"withoutAck": "refuse", "ackTimeoutMs": 1000}}: what a write waits for on a host with replicas. */
  private static ReplicaAcks replication(JsonNode replication) {
    ReplicaAcks.Mode parsed = oneOf("replication.withoutAck", replication.path("withoutAck").asText("refuse"),
        List.of(Map.entry("refuse", ReplicaAcks.Mode.REFUSE), Map.entry("async", ReplicaAcks.Mode.ASYNC)));
    return new ReplicaAcks(parsed, Duration.ofMillis(replication.path("ackTimeoutMs")
        .asLong(ReplicaAcks.DEFAULT_TIMEOUT.toMillis())));
  }

  /**
   * The choice {@code value} names among {@code choices}, whose names a refusal lists in the order
   * given; another value is refused, saying what {@code path} must be.
   */
  private static <T> T oneOf(String path, String value, List<Map.Entry<String, T>> choices) {
    for (Map.Entry<String, T> choice : choices) {
      if (choice.getKey().equals(value)) {
        return choice.getValue();
      }
    }
    throw new IllegalArgumentException(path + " must be " + String.join(" or ",
        choices.stream().map(choice -> "\"" + choice.getKey() + "\"").toList()) + ", got \"" + value + "\"");
  }
}
