package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * A host that accepts TCP connections and then says nothing — a MySQL server frozen, or one whose
 * kernel still completes connects into its backlog — never greets, so a connection the pool opens
 * for a transaction waits in the handshake, past the TCP connect timeout. The pool's acquire
 * timeout ({@code mysql.acquireTimeoutMs}) covers that wait too; this holds it to it, so a write
 * to such a host is answered, and says nothing was written.
 */
class SilentHostTest {
  private static final Duration ACQUIRE = Duration.ofMillis(300);
  private static final Duration STATEMENT = Duration.ofMillis(300);

  @Test
  void aTransactionOnAHostThatNeverGreets_isAnsweredUnavailableWithinTheAcquireTimeout_andReleasesItsWait()
      throws Exception {
    Vertx vertx = Vertx.vertx();
    List<Socket> accepted = new CopyOnWriteArrayList<>();
    try (ServerSocket silent = new ServerSocket(0)) {
      Thread acceptor = new Thread(() -> {
        while (!silent.isClosed()) {
          try {
            accepted.add(silent.accept());
          } catch (Exception closed) {
            return;
          }
        }
      }, "silent-host");
      acceptor.setDaemon(true);
      acceptor.start();
      TestBackend backend = TestBackend.get();
      PoolSettings settings = new PoolSettings(backend.hosts().user(), backend.hosts().password(), 4, 256,
          Duration.ofMillis(500), ACQUIRE, 16, 1, STATEMENT, PoolSettings.DEFAULT_DOWN_AFTER);
      Pool pool = HostPools.pool(vertx, new Host("h9", "127.0.0.1:" + silent.getLocalPort(), List.of()), settings,
          new PoolOptions().setMaxSize(4).setConnectionTimeout((int) ACQUIRE.toMillis())
              .setConnectionTimeoutUnit(TimeUnit.MILLISECONDS), null);
      ShardClient client = new ShardClient(vertx, settings, new MapWrites(backend::shardMap, version -> {}));
      ShardRoute route = new ShardRoute(0, "h9", pool, false);

      long started = System.nanoTime();
      Future<Object> written = client.inTransaction(route, connection -> connection.query("SELECT 1").execute()
          .map(rows -> (Object) rows));
      written.otherwiseEmpty().await();
      Throwable failure = written.cause();
      Duration took = Duration.ofNanos(System.nanoTime() - started);

      assertThat(accepted).as("the host took the connection").isNotEmpty();
      assertThat(failure).isInstanceOf(GraphException.class);
      assertThat(((GraphException) failure).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
      assertThat(failure).hasMessageContaining("h9").hasMessageContaining("nothing was written");
      assertThat(took).as("answered within the acquire timeout, not whenever the host speaks")
          .isLessThan(ACQUIRE.plusSeconds(1));
    } finally {
      accepted.forEach(socket -> {
        try {
          socket.close();
        } catch (Exception ignored) {
          // already gone
        }
      });
      vertx.close().await();
    }
  }
}
