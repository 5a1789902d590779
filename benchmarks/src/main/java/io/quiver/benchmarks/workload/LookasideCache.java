package io.quiver.benchmarks.workload;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * {@code lookaside}: what a competent team puts in front of {@code jdbc-http} for a read-heavy
 * graph, and what TAO replaced at Facebook (memcache beside MySQL, "Scaling Memcache at Facebook",
 * NSDI 2013): a look-aside cache in a real cache server. A read looks in Redis first and, on a
 * miss, reads MySQL, answers, and fills the key without waiting; a write goes to MySQL and then
 * deletes every key it made stale before it answers, so a caller reads its own writes.
 *
 * <p>The keys: a node's answer under {@code n:ID}; everything read from one edge list — its first
 * page, its count and single edges by target, present or absent — as fields of one hash
 * {@code l:FROM}, so that a write to the list deletes all of it with one key, as a team would lay
 * it out to make invalidation cheap. Values carry their status (found or not) before the body.
 * Every key lives {@link #TTL_SECONDS} (Quiver's value TTL), and Redis evicts the least recently
 * used key past its {@code maxmemory} ({@link RedisCacheServer}), sized to Quiver's cache.
 *
 * <p>What it does not do, as such services mostly do not: leases against the stale fill (a read
 * that missed before a write may fill the old value after the write's delete; memcache's leases
 * close that window, Redis has none built in — the TTL bounds it), and updating a list in place
 * (a write drops the list; the next read of it misses). Quiver updates its cached windows in place
 * ({@code docs/design.md}); the LinkBench mix is where that difference shows.
 */
final class LookasideCache {
  /** How long a key lives: Quiver's {@code cache.valueTtlSeconds} default. */
  static final long TTL_SECONDS = 300;
  private static final byte FOUND = 1;
  private static final byte ABSENT = 0;

  private final JdbcTarget sql;
  private final Redis redis;

  LookasideCache(Vertx vertx, JdbcTarget sql, int redisPort, int connections) {
    this.sql = sql;
    this.redis = Redis.createClient(vertx, new RedisOptions()
        .setConnectionString("redis://127.0.0.1:" + redisPort)
        .setMaxPoolSize(connections)
        .setMaxPoolWaiting(Math.max(1024, connections * 64)));
  }

  Future<JdbcTarget.Answer> answer(Call call) {
    long from = call.from();
    return switch (call.operation()) {
      case GET_NODE -> read(call, Request.cmd(Command.GET).arg(node(from)),
          value -> List.of(Request.cmd(Command.SET).arg(node(from)).arg(value).arg("EX").arg(TTL_SECONDS)));
      case GET_EDGES -> readField(call, list(from), "page");
      case COUNT_EDGES -> readField(call, list(from), "count");
      case GET_EDGE, POINT_READ -> readField(call, list(from), point(call.to()));
      case BATCH_READ -> batch(call);
      case ADD_NODE -> sql.answer(call);
      case UPDATE_NODE, DELETE_NODE -> sql.answer(call).compose(answer -> invalidate(answer, node(from)));
      case ADD_EDGE, UPDATE_EDGE, REMOVE_EDGE -> sql.answer(call)
          .compose(answer -> invalidate(answer, list(from), list(call.to())));
    };
  }

  private static String node(long id) {
    return "n:" + id;
  }

  private static String list(long from) {
    return "l:" + from;
  }

  /** A single edge's field in its list's hash. */
  private static String point(long to) {
    return "t" + to;
  }

  private Future<JdbcTarget.Answer> readField(Call call, String key, String field) {
    return read(call, Request.cmd(Command.HGET).arg(key).arg(field), value -> fillField(key, field, value));
  }

  /** What fills one field of a list's hash: the value, and the hash's life renewed, sent together. */
  private static List<Request> fillField(String key, String field, Buffer value) {
    return List.of(Request.cmd(Command.HSET).arg(key).arg(field).arg(value),
        Request.cmd(Command.EXPIRE).arg(key).arg(TTL_SECONDS));
  }

  /**
   * The look-aside read: the cached answer, or MySQL's, filled in the background in one round trip
   * when it is an answer worth keeping.
   */
  private Future<JdbcTarget.Answer> read(Call call, Request get,
      java.util.function.Function<Buffer, List<Request>> fill) {
    return redis.send(get).compose(cached -> {
      if (cached != null) {
        return Future.succeededFuture(decode(cached.toBuffer()));
      }
      return sql.answer(call).onSuccess(answer -> {
        if (answer.status() == 200 || answer.status() == 404) {
          redis.batch(fill.apply(encode(answer.status() == 200, answer.body())));
        }
      });
    });
  }

  /** Each source's edge to the target from its list's hash; the misses from MySQL in one statement per shard, then filled. */
  private Future<JdbcTarget.Answer> batch(Call call) {
    List<Request> gets = new ArrayList<>(call.sources().size());
    for (long source : call.sources()) {
      gets.add(Request.cmd(Command.HGET).arg(list(source)).arg(point(call.to())));
    }
    return redis.batch(gets).compose(cached -> {
      // Each source's edge in request order, null where there is none; the misses are filled below.
      Map<Long, byte[]> edges = new LinkedHashMap<>();
      List<Long> missing = new ArrayList<>();
      for (int i = 0; i < cached.size(); i++) {
        long source = call.sources().get(i);
        JdbcTarget.Answer answer = cached.get(i) == null ? null : decode(cached.get(i).toBuffer());
        edges.put(source, answer == null || answer.status() != 200 ? null : answer.body());
        if (answer == null) {
          missing.add(source);
        }
      }
      if (missing.isEmpty()) {
        return Future.succeededFuture(edgesAnswer(edges));
      }
      return sql.edgesTo(missing, call.to()).map(read -> {
        List<Request> fills = new ArrayList<>(missing.size() * 2);
        for (long source : missing) {
          byte[] edge = read.get(source);
          fills.addAll(fillField(list(source), point(call.to()), encode(edge != null, edge)));
          edges.put(source, edge);
        }
        redis.batch(fills);
        return edgesAnswer(edges);
      });
    });
  }

  private static JdbcTarget.Answer edgesAnswer(Map<Long, byte[]> edges) {
    return new JdbcTarget.Answer(200, JdbcTarget.edgesObject(edges.values().stream().filter(Objects::nonNull).toList()));
  }

  /** After a write that succeeded, deletes the keys it made stale; answers once they are gone. */
  private Future<JdbcTarget.Answer> invalidate(JdbcTarget.Answer answer, String... keys) {
    if (answer.status() >= 300) {
      return Future.succeededFuture(answer);
    }
    Request delete = Request.cmd(Command.DEL);
    for (String key : keys) {
      delete.arg(key);
    }
    return redis.send(delete).map(deleted -> answer);
  }

  private static Buffer encode(boolean found, byte[] body) {
    Buffer value = Buffer.buffer(1 + (body == null ? 0 : body.length)).appendByte(found ? FOUND : ABSENT);
    return body == null ? value : value.appendBytes(body);
  }

  private static JdbcTarget.Answer decode(Buffer value) {
    boolean found = value.getByte(0) == FOUND;
    return new JdbcTarget.Answer(found ? 200 : 404, value.getBytes(1, value.length()));
  }

  void close() {
    redis.close();
  }
}
