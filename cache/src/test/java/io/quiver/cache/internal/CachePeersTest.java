package io.quiver.cache.internal;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.store.NodeId;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.datagram.DatagramSocket;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Queue;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.BooleanSupplier;
import org.apache.curator.framework.CuratorFramework;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two servers' peers over real UDP and a real ZooKeeper: changes announced on every thread arrive
 * whole, a datagram merely overtaken costs nothing, and one that never arrives drops the cache.
 */
class CachePeersTest {
  private static final Duration BOUND = Duration.ofSeconds(2);
  private static Vertx vertx;
  private static CuratorFramework curator;

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    curator = TestBackend.get().curator();
  }

  @AfterAll
  static void stop() {
    vertx.close().await();
  }

  /** What one server was told. */
  private static final class Heard implements CachePeers.Receiver {
    final Set<Long> nodes = ConcurrentHashMap.newKeySet();
    final Queue<String> anything = new ConcurrentLinkedQueue<>();

    @Override
    public void nodeChanged(NodeId id) {
      nodes.add(id.value());
    }

    @Override
    public void edgesChanged(NodeId from, String edgeType) {
      nodes.add(-from.value());
    }

    @Override
    public void anythingChanged(String why) {
      anything.add(why);
    }
  }

  /** A ticker the test moves by hand. */
  private static final class Clock implements com.github.benmanes.caffeine.cache.Ticker {
    final AtomicLong nanos = new AtomicLong();

    @Override
    public long read() {
      return nanos.get();
    }
  }

  private static String freshPath() {
    return "/quiver-test/cache-peers-" + UUID.randomUUID();
  }

  @Test
  void changesAnnouncedOnManyThreadsAtOnce_allArrive_andNoneCountsAsLost() throws Exception {
    String path = freshPath();
    Clock clock = new Clock();
    Heard writerHeard = new Heard();
    Heard readerHeard = new Heard();
    try (CachePeers writer = new CachePeers(vertx, curator, path, "127.0.0.1", BOUND, clock, writerHeard);
        CachePeers reader = new CachePeers(vertx, curator, path, "127.0.0.1", BOUND, clock, readerHeard)) {
      writer.start();
      reader.start();
      await(() -> writer.peerCount() == 1 && reader.peerCount() == 1, "the peers find each other");

      // Event loops and plain threads announce at once, as requests and the applier do.
      int perThread = 5_000;
      List<Future<?>> announcing = new ArrayList<>();
      for (int t = 0; t < 4; t++) {
        long first = t * perThread + 1L;
        Runnable announce = () -> {
          for (long id = first; id < first + perThread; id++) {
            if (id % 2 == 0) {
              writer.nodeChanged(new NodeId(id));
            } else {
              writer.edgesChanged(new NodeId(id), "follows");
            }
          }
        };
        announcing.add(t % 2 == 0
            ? vertx.executeBlocking(() -> { announce.run(); return null; }, false)
            : Future.future(done -> vertx.getOrCreateContext().runOnContext(v -> { announce.run(); done.complete(); })));
      }
      Future.all(announcing).await();
      await(() -> readerHeard.nodes.size() == 4 * perThread, "every change arrives");

      // Whatever was overtaken has arrived; past the grace, the next datagram finds no hole open.
      clock.nanos.addAndGet(CachePeers.REORDER_GRACE.toNanos() + 1);
      writer.nodeChanged(new NodeId(4L * perThread + 2));
      await(() -> readerHeard.nodes.size() == 4 * perThread + 1, "the last change arrives");
      assertThat(readerHeard.anything).as("nothing counted as lost").isEmpty();
      assertThat(reader.received()).isEqualTo(4L * perThread + 1);
      assertThat(writer.sent()).as("one announcement per change and peer").isEqualTo(4L * perThread + 1);
    }
  }

  @Test
  void aDatagramOvertakenByTheNext_costsNothing_butOneThatNeverArrives_dropsTheCacheAfterTheGrace()
      throws Exception {
    String path = freshPath();
    Clock clock = new Clock();
    Heard heard = new Heard();
    try (CachePeers reader = new CachePeers(vertx, curator, path, "127.0.0.1", BOUND, clock, heard)) {
      reader.start();
      await(() -> registered(path), "the reader registers");
      String address = new String(curator.getData().forPath(path + "/" + curator.getChildren().forPath(path).get(0)),
          StandardCharsets.UTF_8);
      int port = Integer.parseInt(address.substring(address.lastIndexOf(':') + 1));
      DatagramSocket peer = vertx.createDatagramSocket();
      try {
        send(peer, port, "p 1\nN 1");
        send(peer, port, "p 3\nN 3");
        send(peer, port, "p 2\nN 2\nE 2 follows");
        await(() -> heard.nodes.size() == 4, "the reordered datagrams arrive");
        clock.nanos.addAndGet(CachePeers.REORDER_GRACE.toNanos());
        send(peer, port, "p 3");
        send(peer, port, "p 5\nN 5");
        await(() -> heard.nodes.contains(5L), "the datagram after the lost one arrives");
        assertThat(heard.anything).as("a number filled within the grace was only reordered").isEmpty();

        clock.nanos.addAndGet(CachePeers.REORDER_GRACE.toNanos());
        send(peer, port, "p 6\nN 6");
        await(() -> !heard.anything.isEmpty(), "number 4 is counted as lost");
        assertThat(heard.anything).hasSize(1).first().asString().contains("peer p").contains("lost");
      } finally {
        peer.close().await();
      }
    }
  }

  private static boolean registered(String path) {
    try {
      return curator.checkExists().forPath(path) != null && !curator.getChildren().forPath(path).isEmpty();
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
  }

  private static void send(DatagramSocket from, int port, String text) {
    from.send(Buffer.buffer(text, "UTF-8"), port, "127.0.0.1").await();
  }

  private static void await(BooleanSupplier condition, String what) throws InterruptedException {
    Await.until(what, Duration.ofSeconds(10), condition::getAsBoolean);
  }
}
