package io.quiver.benchmarks.workload;

import io.quiver.embedded.Ports;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import java.io.IOException;
import java.util.HashMap;
import java.util.Map;
import redis.embedded.RedisServer;

/**
 * The look-aside rival's cache server: a real Redis (6.2, the binary embedded-redis ships for this
 * platform), configured as a look-aside cache is — no persistence, least-recently-used eviction of
 * any key past {@code maxmemory} (memcached's policy) — with {@code maxmemory} at the byte budget
 * Quiver's cache has on top of what the empty server already uses, so that both keep as much data.
 */
final class RedisCacheServer implements AutoCloseable {
  /** Redis's own counters at one moment. */
  record Stats(long hits, long misses, long evicted, long usedBytes) {
    /** The hit ratio between {@code earlier} and this reading, with its lookups and evictions. */
    String since(Stats earlier) {
      long lookups = hits - earlier.hits + misses - earlier.misses;
      return String.format(java.util.Locale.ROOT, "Redis hit ratio %.3f (%d lookups), %d keys evicted, %d bytes used",
          hitRatioSince(earlier), lookups, evicted - earlier.evicted, usedBytes);
    }

    /** The hit ratio between {@code earlier} and this reading; 0 without lookups. */
    double hitRatioSince(Stats earlier) {
      long lookups = hits - earlier.hits + misses - earlier.misses;
      return lookups == 0 ? 0.0 : (double) (hits - earlier.hits) / lookups;
    }
  }

  private final RedisServer server;
  private final Redis client;
  private final int port;
  private final long maxMemoryBytes;

  RedisCacheServer(Vertx vertx, long budgetBytes) throws IOException {
    this.port = Ports.free();
    this.server = RedisServer.newRedisServer()
        .port(port)
        .bind("127.0.0.1")
        .setting("save \"\"")
        .setting("appendonly no")
        .setting("maxmemory-policy allkeys-lru")
        .build();
    server.start();
    this.client = Redis.createClient(vertx, new RedisOptions().setConnectionString("redis://127.0.0.1:" + port));
    this.maxMemoryBytes = stats().usedBytes() + budgetBytes;
    client.send(Request.cmd(Command.CONFIG).arg("SET").arg("maxmemory").arg(maxMemoryBytes)).await();
  }

  int port() {
    return port;
  }

  long maxMemoryBytes() {
    return maxMemoryBytes;
  }

  Stats stats() {
    Map<String, String> info = new HashMap<>();
    for (String line : client.send(Request.cmd(Command.INFO)).await().toString().split("\r?\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        info.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return new Stats(Long.parseLong(info.get("keyspace_hits")), Long.parseLong(info.get("keyspace_misses")),
        Long.parseLong(info.get("evicted_keys")), Long.parseLong(info.get("used_memory")));
  }

  @Override
  public void close() throws IOException {
    client.close();
    server.stop();
  }
}
