package io.quiver.benchmarks.workload;

import io.quiver.embedded.Ports;
import io.vertx.core.Future;
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
 *
 * <h2>The budget is the data's</h2>
 * Redis counts its clients' buffers against {@code maxmemory}; Quiver's cache weighs its entries
 * only, its connections' buffers being the JVM's. Fixed at the empty server's size plus the budget,
 * {@code maxmemory} left the rival's data what the lookaside service's connections did not take:
 * at 5,000 users (a budget of 677 KB) the connections' query buffers, kept between requests, took
 * all of it under load, and Redis refused every fill (the lookaside fills without waiting, so the
 * {@code OOM} answers went unseen): a hit ratio of 0.000 over 20,608 lookups of LinkBench's mix and
 * 74,713 of TAO's, 0 keys evicted, the same 1.21 MB used at every phase's end. So
 * {@code maxmemory} follows the clients' buffers ({@code mem_clients_normal}), re-set every
 * {@link #FOLLOW_EVERY_MS} ms: the empty server's own memory, the clients' now, and the budget.
 * One follow at a time: two in flight could set the limit an older reading asked for last. A new
 * connection's buffers (about 60 KB in Redis 6.2) take the data's room until the next follow.
 */
final class RedisCacheServer implements AutoCloseable {
  /** Redis's own counters at one moment. */
  record Stats(long hits, long misses, long evicted, long usedBytes, long clientBytes, long refused) {
    /**
     * The hit ratio between {@code earlier} and this reading, with its lookups, evictions and the
     * commands Redis refused — the lookaside service fills without waiting for the answer, so a fill
     * refused ({@code OOM}, say) shows nowhere else.
     */
    String since(Stats earlier) {
      long lookups = hits - earlier.hits + misses - earlier.misses;
      return String.format(java.util.Locale.ROOT, "Redis hit ratio %.3f (%d lookups), %d keys evicted, %d commands"
          + " refused, %d bytes used (%d of them its clients' buffers)", hitRatioSince(earlier), lookups,
          evicted - earlier.evicted, refused - earlier.refused, usedBytes, clientBytes);
    }

    /** The hit ratio between {@code earlier} and this reading; 0 without lookups. */
    double hitRatioSince(Stats earlier) {
      long lookups = hits - earlier.hits + misses - earlier.misses;
      return lookups == 0 ? 0.0 : (double) (hits - earlier.hits) / lookups;
    }
  }

  /** How often {@code maxmemory} follows the clients' buffers. */
  static final long FOLLOW_EVERY_MS = 200;

  private final RedisServer server;
  private final Redis client;
  private final int port;
  private final long budgetBytes;
  /** The empty server's memory without its clients' buffers. */
  private final long ownBytes;
  private final Vertx vertx;
  private final long follower;
  private volatile long maxMemoryBytes;
  /** The last follow begun: the next one starts once it has ended. */
  private Future<Long> following = Future.succeededFuture(0L);

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
    this.vertx = vertx;
    this.budgetBytes = budgetBytes;
    Stats empty = stats();
    this.ownBytes = empty.usedBytes() - empty.clientBytes();
    follow().await();
    this.follower = vertx.setPeriodic(FOLLOW_EVERY_MS, tick -> follow());
  }

  /**
   * Sets {@code maxmemory} to the server's own memory, its clients' buffers now and the budget,
   * after any follow still in flight; answers it. Called every {@link #FOLLOW_EVERY_MS} ms, and
   * once at the start.
   */
  synchronized Future<Long> follow() {
    following = following.transform(previous -> followNow());
    return following;
  }

  private Future<Long> followNow() {
    return client.send(Request.cmd(Command.INFO).arg("memory"))
        .map(info -> ownBytes + budgetBytes + number(fields(info.toString()), "mem_clients_normal"))
        .compose(limit -> limit == maxMemoryBytes ? Future.succeededFuture(limit)
            : client.send(Request.cmd(Command.CONFIG).arg("SET").arg("maxmemory").arg(limit)).map(set -> {
              maxMemoryBytes = limit;
              return limit;
            }));
  }

  /** The data's budget: what {@code maxmemory} holds above the server's own memory and its clients'. */
  long budgetBytes() {
    return budgetBytes;
  }

  int port() {
    return port;
  }

  long maxMemoryBytes() {
    return maxMemoryBytes;
  }

  Stats stats() {
    Map<String, String> info = fields(client.send(Request.cmd(Command.INFO)).await().toString());
    return new Stats(number(info, "keyspace_hits"), number(info, "keyspace_misses"), number(info, "evicted_keys"),
        number(info, "used_memory"), number(info, "mem_clients_normal"), number(info, "total_error_replies"));
  }

  /** {@code INFO}'s answer, field by field. */
  private static Map<String, String> fields(String info) {
    Map<String, String> fields = new HashMap<>();
    for (String line : info.split("\\r?\\n")) {
      int colon = line.indexOf(':');
      if (colon > 0) {
        fields.put(line.substring(0, colon), line.substring(colon + 1).trim());
      }
    }
    return fields;
  }

  private static long number(Map<String, String> info, String name) {
    String value = info.get(name);
    if (value == null) {
      throw new IllegalStateException("Redis's INFO has no " + name);
    }
    return Long.parseLong(value);
  }

  @Override
  public void close() throws IOException {
    vertx.cancelTimer(follower);
    client.close();
    server.stop();
  }
}
