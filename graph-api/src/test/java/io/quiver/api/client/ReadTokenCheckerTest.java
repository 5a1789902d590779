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
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The consistency checker: eight writers on one server add board-to-pin edges (whose inverse copies
 * are written from the outbox) and update the boards, each in a session of its own, and hand every
 * write's token with what it wrote to eight readers on a second server, who read it back — the
 * pin's inverse list and its count, the board's list, the board — carrying the token, one by one
 * or in one atomic multi-read. Every answer is checked against what the token covers (none may be
 * older) and every multi-read for a list that disagrees with its count. The default run lasts 10 s;
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
    AtomicLong multiReads = new AtomicLong();
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
            List<Long> inverse;
            long count;
            List<Long> forward;
            long version;
            if (ThreadLocalRandom.current().nextBoolean()) {
              inverse = reader.getEdges(write.pin(), "pin_owned_by_board", EdgeQuery.newestFirst()).edges()
                  .stream().map(Edge::to).toList();
              count = reader.countEdges(write.pin(), "pin_owned_by_board");
              forward = reader.getEdges(write.board(), "board_has_pins", EdgeQuery.newestFirst()).edges()
                  .stream().map(Edge::to).toList();
              version = reader.getNode(write.board()).version();
            } else {
              // The same, in one atomic multi-read carrying the token: fresh and never torn.
              QuiverClient.AtomicRead read = reader.readAtomically(List.of(write.board()),
                  List.of(new QuiverClient.ListRead(write.pin(), "pin_owned_by_board", 10),
                      new QuiverClient.ListRead(write.board(), "board_has_pins", 10)));
              inverse = read.lists().get(0).edges().stream().map(Edge::to).toList();
              count = read.lists().get(0).count();
              forward = read.lists().get(1).edges().stream().map(Edge::to).toList();
              version = read.nodes().get(0).version();
              multiReads.incrementAndGet();
              if (count != inverse.size() || read.lists().get(1).count() != forward.size()) {
                older.add(write + ": a multi-read's list and count disagree: " + read);
              }
            }
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
        + " (%d of them in %d atomic multi-reads; %d refused), %d older than their token or torn%n", SECONDS,
        writes.get(), reads.get(), multiReads.get() * 4, multiReads.get(), refused.get(), older.size());
    assertThat(older).as("reads older than their token").isEmpty();
    assertThat(refused.get()).as("with every host up, no token'd read is refused").isZero();
    assertThat(reads.get()).as("the readers read").isPositive();
  }
}
