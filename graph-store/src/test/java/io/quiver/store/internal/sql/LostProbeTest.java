package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.store.PoolSettings;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Vertx;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * A probe whose answer never comes though its connection stays open — the client lost track of
 * it — must not keep its host down once the host answers again ({@link HostHealth}). Between the
 * probe and a real MariaDB sits a relay that, once told, drops every answer on the connections it
 * already carries, while new connections are relayed whole.
 */
class LostProbeTest {
  private static final Duration DOWN_AFTER = Duration.ofMillis(200);

  /** Relays connections to {@code target}; {@link #silenceOpenConnections} drops the answers on those open now. */
  private static final class Relay implements AutoCloseable {
    private final ServerSocket server = new ServerSocket(0);
    private final List<Socket> sockets = new CopyOnWriteArrayList<>();
    private final List<AtomicBoolean> silenced = new CopyOnWriteArrayList<>();
    /** Bytes of answers relayed: a probe answered over an open connection shows here. */
    private final AtomicLong answered = new AtomicLong();

    Relay(InetSocketAddress target) throws Exception {
      Thread acceptor = new Thread(() -> {
        while (!server.isClosed()) {
          try {
            Socket client = server.accept();
            Socket upstream = new Socket(target.getAddress(), target.getPort());
            sockets.add(client);
            sockets.add(upstream);
            AtomicBoolean quiet = new AtomicBoolean();
            silenced.add(quiet);
            copy(client.getInputStream(), upstream.getOutputStream(), new AtomicBoolean(), new AtomicLong());
            copy(upstream.getInputStream(), client.getOutputStream(), quiet, answered);
          } catch (Exception closed) {
            return;
          }
        }
      }, "relay");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    private static void copy(InputStream from, OutputStream to, AtomicBoolean quiet, AtomicLong bytes) {
      Thread copier = new Thread(() -> {
        byte[] buffer = new byte[8192];
        try {
          for (int read = from.read(buffer); read >= 0; read = from.read(buffer)) {
            if (!quiet.get()) {
              to.write(buffer, 0, read);
              to.flush();
              bytes.addAndGet(read);
            }
          }
        } catch (Exception closed) {
          // the relay or a side closed
        }
      }, "relay-copy");
      copier.setDaemon(true);
      copier.start();
    }

    void silenceOpenConnections() {
      silenced.forEach(quiet -> quiet.set(true));
    }

    String address() {
      return "127.0.0.1:" + server.getLocalPort();
    }

    @Override
    public void close() throws Exception {
      server.close();
      for (Socket socket : sockets) {
        socket.close();
      }
    }
  }

  @Test
  void aProbeWhoseAnswerNeverComes_isGivenUp_andItsHostIsUpAgainOnceANewConnectionIsAnswered() throws Exception {
    TestBackend backend = TestBackend.get();
    String[] real = backend.shardMap().hosts().get("h1").primary().split(":");
    Vertx vertx = Vertx.vertx();
    try (Relay relay = new Relay(new InetSocketAddress(real[0], Integer.parseInt(real[1])))) {
      PoolSettings settings = new PoolSettings(backend.hosts().user(), backend.hosts().password(), 2, 256,
          Duration.ofMillis(500), Duration.ofSeconds(2), 16, 16, Duration.ofSeconds(3), DOWN_AFTER);
      ShardMap map = new ShardMap(1, Map.of("h9", new Host("h9", relay.address(), List.of())),
          List.of(new ShardRange(0, 0, "h9")), List.of(new ShardSpan(0, 0)), Map.of());
      HostHealth health = new HostHealth(vertx, settings, Clock.systemUTC(), map, new CommitWatch(Clock.systemUTC()),
          new QueryKiller(settings.statementTimeout().toMillis()));
      try {
        // Answers relayed for a while on the connection the probes keep: greeting, login, session, SELECT 1s.
        Await.until("probes answered through the relay", Duration.ofSeconds(10),
            () -> relay.answered.get() > 2_000 && health.down("h9") == null);

        relay.silenceOpenConnections();
        Await.until("the host down: its probe is not answered", Duration.ofSeconds(5), () -> health.down("h9") != null);

        // Only the connections open at the silence drop their answers: a new connection is answered.
        Await.until("up again, on a new connection", Duration.ofSeconds(5), () -> health.down("h9") == null);
      } finally {
        health.close().await();
      }
    } finally {
      vertx.close().await();
    }
  }
}
