package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import io.quiver.api.testing.ApiClient.Answer;
import io.quiver.api.testing.TwoServers;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import io.vertx.core.http.HttpMethod;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The atomic-read checker: writers on one server add and remove edges between a few boards and
 * pins, through either direction's type (so each side's copy is, in turn, the one written from
 * the outbox), while readers on a second server read a board's list and several pins' inverse lists
 * in one multi-read ({@code POST /v1/read}) and check that no answer shows part of a write: a pin
 * on the board's list exactly when the board is on the pin's, and every list its count. The same
 * reads made one by one are counted too, fractured or not, to show what the multi-read prevents.
 * The default run lasts 10 s; {@code -Dquiver.atomic.seconds=60} makes the long one.
 */
class AtomicReadCheckerTest {
  private static final int WRITERS = 4;
  private static final int READERS = 4;
  private static final long SECONDS = Long.getLong("quiver.atomic.seconds", 10);
  /** Boards and pins the writers link: few enough that reads meet writes in flight, not so few that every list always changes. */
  private static final int PAIRS = Integer.getInteger("quiver.atomic.pairs", 30);

  @RegisterExtension
  static final TwoServers servers = new TwoServers();

  @Test
  void multiReadsOnAnotherServer_neverShowPartOfAWrite_whileWritersAddAndRemoveBothWays() throws Exception {
    List<Long> boards = new ArrayList<>();
    List<Long> pins = new ArrayList<>();
    for (int i = 0; i < PAIRS; i++) {
      boards.add(servers.one.createNode("board", Map.of("title", "b" + i)).id());
      pins.add(servers.one.createNode("pin", Map.of("link", "p" + i)).id());
    }
    AtomicBoolean stop = new AtomicBoolean();
    AtomicLong writes = new AtomicLong();
    AtomicLong atomicReads = new AtomicLong();
    AtomicLong secondRounds = new AtomicLong();
    AtomicLong refused = new AtomicLong();
    AtomicLong plainReads = new AtomicLong();
    AtomicLong plainFractured = new AtomicLong();
    List<String> fractured = java.util.Collections.synchronizedList(new ArrayList<>());
    ExecutorService threads = Executors.newFixedThreadPool(WRITERS + READERS);
    for (int w = 0; w < WRITERS; w++) {
      threads.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
          long board = boards.get(random.nextInt(boards.size()));
          long pin = pins.get(random.nextInt(pins.size()));
          boolean viaPin = random.nextBoolean();
          try {
            if (random.nextBoolean()) {
              if (viaPin) {
                servers.one.addEdge(pin, "pin_owned_by_board", board);
              } else {
                servers.one.addEdge(board, "board_has_pins", pin);
              }
            } else if (viaPin) {
              servers.one.removeEdge(pin, "pin_owned_by_board", board);
            } else {
              servers.one.removeEdge(board, "board_has_pins", pin);
            }
            writes.incrementAndGet();
          } catch (QuiverException conflict) {
            // two writers on one edge: the loser retries another
          }
        }
        return null;
      });
    }
    for (int r = 0; r < READERS; r++) {
      threads.submit(() -> {
        ThreadLocalRandom random = ThreadLocalRandom.current();
        while (!stop.get()) {
          long board = boards.get(random.nextInt(boards.size()));
          List<Long> asked = new ArrayList<>(new HashSet<>(List.of(pins.get(random.nextInt(pins.size())),
              pins.get(random.nextInt(pins.size())), pins.get(random.nextInt(pins.size())))));
          StringBuilder lists = new StringBuilder("{\"from\": \"" + board + "\", \"type\": \"board_has_pins\", \"limit\": 100}");
          asked.forEach(pin -> lists.append(", {\"from\": \"").append(pin)
              .append("\", \"type\": \"pin_owned_by_board\", \"limit\": 100}"));
          Answer read = servers.second.call(HttpMethod.POST, "/v1/read", "{\"lists\": [" + lists + "]}");
          if (read.status() != 200) {
            refused.incrementAndGet();
            continue;
          }
          atomicReads.incrementAndGet();
          if (read.body().path("rounds").asInt() > 1) {
            secondRounds.incrementAndGet();
          }
          List<Set<Long>> targets = new ArrayList<>();
          List<Long> counts = new ArrayList<>();
          read.body().path("lists").forEach(list -> {
            targets.add(targets(list.path("edges")));
            counts.add(list.path("count").asLong());
          });
          String problem = fracture(board, asked, targets, counts);
          if (problem != null) {
            fractured.add(problem + " in " + read.text());
          }
          // The same lists read one by one, for comparison.
          List<Set<Long>> oneByOne = new ArrayList<>();
          List<Long> oneByOneCounts = new ArrayList<>();
          oneByOne.add(targets(servers.second.call(HttpMethod.GET, "/v1/nodes/" + board + "/edges/board_has_pins?limit=100")
              .body().path("edges")));
          oneByOneCounts.add((long) oneByOne.get(0).size());
          for (long pin : asked) {
            oneByOne.add(targets(servers.second.call(HttpMethod.GET, "/v1/nodes/" + pin + "/edges/pin_owned_by_board?limit=100")
                .body().path("edges")));
            oneByOneCounts.add((long) oneByOne.get(oneByOne.size() - 1).size());
          }
          plainReads.incrementAndGet();
          if (fracture(board, asked, oneByOne, oneByOneCounts) != null) {
            plainFractured.incrementAndGet();
          }
        }
        return null;
      });
    }
    Thread.sleep(Duration.ofSeconds(SECONDS).toMillis());
    stop.set(true);
    threads.shutdown();
    assertThat(threads.awaitTermination(1, TimeUnit.MINUTES)).isTrue();

    System.out.printf("atomic-read checker: %d s, %d writes, %d multi-reads of 2-4 lists (%.2f %% took a second round,"
        + " %d refused), %d fractured; the same reads one by one: %d, %d fractured%n", SECONDS, writes.get(),
        atomicReads.get(), 100.0 * secondRounds.get() / Math.max(1, atomicReads.get()), refused.get(),
        fractured.size(), plainReads.get(), plainFractured.get());
    assertThat(fractured).as("multi-reads showing part of a write").isEmpty();
    assertThat(refused.get()).as("with every host up, no multi-read is refused").isZero();
    assertThat(atomicReads.get()).isPositive();
  }

  @Test
  void aMultiRead_answersItsItemsInOrder_aMissingNodeAsNull_andRefusesWhatIsMalformed() {
    Node board = servers.one.createNode("board", Map.of("title", "in order"));
    Node pin = servers.one.createNode("pin", Map.of("link", "l"));
    servers.one.addEdge(board.id(), "board_has_pins", pin.id(), 3L, null);
    long missing = pin.id() + 1_000_000;

    QuiverClient.AtomicRead read = servers.two.readAtomically(List.of(pin.id(), missing, board.id()),
        List.of(new QuiverClient.ListRead(pin.id(), "pin_owned_by_board", 10),
            new QuiverClient.ListRead(board.id(), "board_has_pins", 10)));

    assertThat(read.nodes()).extracting(node -> node == null ? null : node.id())
        .containsExactly(pin.id(), null, board.id());
    assertThat(read.lists().get(0).edges()).extracting(edge -> edge.to()).containsExactly(board.id());
    assertThat(read.lists().get(1).edges()).extracting(edge -> edge.sequence()).containsExactly(3L);
    assertThat(read.lists()).extracting(QuiverClient.ListAnswer::count).containsExactly(1L, 1L);
    assertThat(read.rounds()).isBetween(1, 2);
    for (String body : List.of("{}", "{\"lists\": [{\"from\": \"" + board.id() + "\", \"type\": \"board_has_pins\","
        + " \"limit\": 101}]}", "{\"lists\": [{\"from\": \"" + board.id() + "\"}]}", "{\"nodes\": [\"x\"]}",
        "{\"lists\": [{\"from\": \"" + board.id() + "\", \"type\": \"nope\"}]}")) {
      assertThat(servers.second.call(HttpMethod.POST, "/v1/read", body).status()).as(body).isIn(400, 404);
    }
  }

  private static Set<Long> targets(JsonNode edges) {
    Set<Long> targets = new HashSet<>();
    edges.forEach(edge -> targets.add(edge.path("to").asLong()));
    return targets;
  }

  /** What part of a write the lists show alone, or null: [0] is the board's list, then each pin's. */
  private static String fracture(long board, List<Long> pins, List<Set<Long>> lists, List<Long> counts) {
    for (int i = 0; i < lists.size(); i++) {
      if (counts.get(i) != lists.get(i).size()) {
        return "list " + i + " counts " + counts.get(i) + " but holds " + lists.get(i).size();
      }
    }
    for (int i = 0; i < pins.size(); i++) {
      boolean forward = lists.get(0).contains(pins.get(i));
      boolean inverse = lists.get(i + 1).contains(board);
      if (forward != inverse) {
        return "board " + board + (forward ? " lists" : " does not list") + " pin " + pins.get(i) + " but the pin"
            + (inverse ? " lists" : " does not list") + " the board";
      }
    }
    return null;
  }
}
