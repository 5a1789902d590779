package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.vertx.core.Vertx;
import io.vertx.redis.client.Command;
import io.vertx.redis.client.Redis;
import io.vertx.redis.client.RedisOptions;
import io.vertx.redis.client.Request;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/**
 * The look-aside rival keeps as much data as Quiver's cache, however much its connections hold:
 * Redis counts its clients' buffers against {@code maxmemory}, so the limit follows them and the
 * budget stays the data's. Against a real Redis.
 */
class RedisCacheServerTest {
  private static final int BUDGET = 256 * 1024;
  /** What the client sends of its large value, and stops: more than the budget. */
  private static final int SENT = 400_000;

  @Test
  void theDataKeepsItsWholeBudget_thoughTheClientsBuffersHoldMoreThanIt() throws Exception {
    Vertx vertx = Vertx.vertx();
    try (RedisCacheServer redis = new RedisCacheServer(vertx, BUDGET);
        Socket sending = new Socket("127.0.0.1", redis.port())) {
      // A client halfway through sending a large value: Redis holds what it has read of it in the
      // client's query buffer, as it keeps a busy service's connections' buffers between requests.
      OutputStream out = sending.getOutputStream();
      out.write("*3\r\n$3\r\nSET\r\n$5\r\nlarge\r\n$800000\r\n".getBytes(StandardCharsets.US_ASCII));
      out.write(new byte[SENT]);
      out.flush();
      // Until Redis has read all that was sent: a buffer still growing after the limit followed it
      // would take the values' room until the next follow, and a SET would be refused (OOM).
      Await.until("Redis holds all that was sent in the client's buffer, more than the budget",
          Duration.ofSeconds(10), () -> redis.stats().clientBytes() > SENT);
      assertThat(redis.follow().await()).as("the limit, past the client's buffer and the budget")
          .isGreaterThan(SENT + BUDGET);

      // Half the budget in values (in Redis, with its keys' overhead, nearly all of it): all of it
      // stays. The writer connects, and the limit follows its buffers too, before it writes.
      Redis writer = Redis.createClient(vertx, new RedisOptions().setConnectionString("redis://127.0.0.1:" + redis.port()));
      writer.send(Request.cmd(Command.PING)).await();
      redis.follow().await();
      String value = "v".repeat(1024);
      int keys = BUDGET / 2 / 1024;
      for (int i = 0; i < keys; i++) {
        writer.send(Request.cmd(Command.SET).arg("k" + i).arg(value)).await();
      }
      int held = 0;
      for (int i = 0; i < keys; i++) {
        held += writer.send(Request.cmd(Command.GET).arg("k" + i)).await() == null ? 0 : 1;
      }
      assertThat(held).as("values held of " + keys).isEqualTo(keys);
      assertThat(redis.stats().evicted()).isZero();
      assertThat(redis.stats().refused()).as("commands Redis refused").isZero();
      writer.close();
    } finally {
      vertx.close().await();
    }
  }
}
