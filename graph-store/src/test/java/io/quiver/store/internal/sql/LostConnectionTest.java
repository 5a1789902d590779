package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * A transaction whose connection is lost under it — its host died, or ended the session — is
 * answered and let go by the shard map's fence ({@link MapWrites}) by its deadline, though the SQL
 * client never answers some of what was sent on a lost connection: counted in flight for good, it
 * would keep this server from acknowledging any later map version, and every failover's fence and
 * every shard move's cut-over would wait on it. Against a real host (a pool of one session), the
 * session killed there as the query killer kills an overdue one.
 */
class LostConnectionTest {
  private static final int SHARD = 4;
  private static final Duration DEADLINE = Duration.ofSeconds(2);
  private static OneHost host;

  @BeforeAll
  static void start() throws Exception {
    host = new OneHost("quiver_lost_connection", 1);
  }

  @AfterAll
  static void stop() throws Exception {
    host.close();
  }

  @Test
  void aTransactionWhoseSessionIsKilled_isAnsweredAndLetGoByTheFence_byItsDeadline() throws Exception {
    AtomicReference<ShardMap> current = new AtomicReference<>(map(1));
    AtomicLong acknowledged = new AtomicLong();
    MapWrites fence = new MapWrites(current::get, acknowledged::set);
    ShardClient client = host.client(fence, DEADLINE);
    Promise<Long> session = Promise.promise();
    long began = System.nanoTime();
    Future<Object> write = client.inTransaction(host.route(SHARD), sql -> sql.query("SELECT CONNECTION_ID()").execute()
        .compose(rows -> {
          session.complete(rows.iterator().next().getLong(0));
          return sql.query("SELECT SLEEP(30)").execute();
        })
        .map(slept -> (Object) slept));

    host.execute("KILL CONNECTION " + session.future().await());
    current.set(map(2));
    fence.evaluate();
    assertThat(acknowledged.get()).as("the write begun under version 1 still counted").isEqualTo(1);

    Await.until("the fence letting go of the lost transaction", DEADLINE.multipliedBy(3),
        () -> acknowledged.get() == 2);
    long tookMs = Duration.ofNanos(System.nanoTime() - began).toMillis();
    assertThat(tookMs).as("let go by the deadline, not before the write is answered").isGreaterThanOrEqualTo(
        DEADLINE.toMillis() - 100);
    assertThat(write.otherwiseEmpty().await()).isNull();
    assertThat(write.cause()).isInstanceOf(GraphException.class);
    assertThat(((GraphException) write.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);

    // The pool of one lends a live session again: the lost one's place is freed, not held by it.
    assertThat(client.inTransaction(host.route(SHARD), sql -> sql.query("SELECT 1").execute()
        .map(rows -> rows.iterator().next().getInteger(0))).await()).isEqualTo(1);
  }

  /** Version {@code version} of a map with the test's shard, writable, on h2. */
  private static ShardMap map(long version) {
    return new ShardMap(version, Map.of("h2", new Host("h2", "127.0.0.1:3306", List.of())),
        List.of(new ShardRange(SHARD, SHARD, "h2")), List.of(new ShardSpan(SHARD, SHARD)), Map.of());
  }
}
