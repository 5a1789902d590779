package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.testing.TwoServers;
import io.quiver.client.Edge;
import io.quiver.client.EdgeQuery;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The read-token checker: eight writers on one server add board-to-pin edges (whose inverse copies
 * are written from the outbox) and update the boards, each in a session of its own, and hand every
 * write's token with what it wrote to eight readers on a second server, who read it back — the
 * pin's inverse list and its count, the board's list, the board — carrying the token. Every answer
 * is checked against what the token covers: none may be older. The default run lasts 10 s;
 * {@code -Dquiver.tokens.seconds=60} makes the long one.
 */
class ReadTokenCheckerTest {
  private static final int WRITERS = 8;
  private static final int READERS = 8;
  private static final long SECONDS = Long.getLong("quiver.tokens.seconds", 10);
  @RegisterExtension
  static final TwoServers servers = new TwoServers();

  /** A write to read back: the board and pin it linked, the board's version after, and the token it answered. */
  private record Written(long board, long pin, long version, String token) {}

  @Test
  void readersOnAnotherServer_carryingEachWritesToken_neverReadOlderThanIt() throws Exception {
    // Small, so writers wait for readers: each write is read back soon after it is answered.
    BlockingQueue<Written> written = new LinkedBlockingQueue<>(64);
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    AtomicLong reads = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    List<String> older = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = Executors.newFixedThreadPool(WRITERS + READERS);
    for (int w = 0; w < WRITERS; w++) {
      threads.submit(() -> {
        QuiverClient session = servers.one.session();
        while (!stop.get()) {
          Node board = session.createNode("board", Map.of("title", "t"));
          Node pin = session.createNode("pin", Map.of("link", "l"));
          session.addEdge(board.id(), "board_has_pins", pin.id());
          Node updated = session.updateNode(board.id(), Map.of("title", "u"));
          writes.addAndGet(4);
          Written done = new Written(board.id(), pin.id(), updated.version(), session.token());
          while (!stop.get() && !written.offer(done, 100, TimeUnit.MILLISECONDS)) {
            // the readers are behind: wait for them
          }
        }
        return null;
      });
    }
    for (int r = 0; r < READERS; r++) {
      threads.submit(() -> {
        while (!stop.get() || !written.isEmpty()) {
          Written write = written.poll(100, TimeUnit.MILLISECONDS);
          if (write == null) {
            continue;
          }
          QuiverClient reader = servers.two.session(write.token());
          try {
            List<Long> inverse = reader.getEdges(write.pin(), "pin_owned_by_board", EdgeQuery.newestFirst()).edges()
                .stream().map(Edge::to).toList();
            long count = reader.countEdges(write.pin(), "pin_owned_by_board");
            List<Long> forward = reader.getEdges(write.board(), "board_has_pins", EdgeQuery.newestFirst()).edges()
                .stream().map(Edge::to).toList();
            long version = reader.getNode(write.board()).version();
            reads.addAndGet(4);
            if (!inverse.contains(write.board()) || count < 1 || !forward.contains(write.pin())
                || version < write.version()) {
              older.add(write + ": inverse " + inverse + ", count " + count + ", forward " + forward
                  + ", version " + version);
            }
          } catch (QuiverException unavailable) {
            refused.incrementAndGet();
          }
        }
        return null;
      });
    }
    Thread.sleep(Duration.ofSeconds(SECONDS).toMillis());
    stop.set(true);
    threads.shutdown();
    assertThat(threads.awaitTermination(1, TimeUnit.MINUTES)).isTrue();

    System.out.printf("read-token checker: %d s, %d writes on one server, %d reads carrying their tokens on another"
        + " (%d refused), %d older than their token%n", SECONDS, writes.get(), reads.get(), refused.get(),
        older.size());
    assertThat(older).as("reads older than their token").isEmpty();
    assertThat(refused.get()).as("with every host up, no token'd read is refused").isZero();
    assertThat(reads.get()).as("the readers read").isPositive();
  }
}
