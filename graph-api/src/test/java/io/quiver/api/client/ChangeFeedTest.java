package io.quiver.api.client;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.api.testing.ApiFixture;
import io.quiver.client.ChangeEvent;
import io.quiver.client.Node;
import io.quiver.client.QuiverClient;
import io.quiver.client.QuiverException;
import io.quiver.core.testing.Await;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The change log followed over HTTP by a consumer in a process of its own, killed ({@code kill -9}) at
 * random points and started again, resuming from the cursor of the last event it processed, while eight clients write: it ends having seen every
 * committed change exactly once, in order per node and per edge list. The default run makes about
 * 2,000 writes; {@code -Dquiver.changes.writes=20000} makes the long one.
 */
class ChangeFeedTest {
  private static final int WRITERS = 8;
  private static final int WRITES = Integer.getInteger("quiver.changes.writes", 2_000);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static ApiFixture server;
  private static QuiverClient quiver;

  @BeforeAll
  static void start() throws Exception {
    server = new ApiFixture();
    quiver = QuiverClient.create(URI.create("http://localhost:" + server.port()));
  }

  @AfterAll
  static void stop() {
    quiver.close();
    server.close();
  }

  @Test
  void aConsumerProcessKilledAtRandomPoints_resumesFromItsLastCursor_andSeesEveryCommittedChangeOnce_inOrderPerKey()
      throws Exception {
    String start = quiver.changes("now", List.of(), 1).cursor();
    ChangeWriters writers = ChangeWriters.start(quiver, WRITERS, WRITES);

    // The consumer: a process of its own, killed (kill -9) at random points and started again; it
    // resumes from the cursor of the last event its journal holds.
    Path journal = Files.createTempFile("changes-journal", ".ndjson");
    Files.delete(journal);
    int kills = 0;
    long deadline = System.nanoTime() + Duration.ofMinutes(5).toNanos();
    String end = null;
    while (System.nanoTime() < deadline && (end == null || !caughtUp(lastCursor(journal, start), end))) {
      boolean writersDone = writers.done();
      Process consumer = consumer(start, journal);
      try {
        if (!writersDone) {
          Thread.sleep(ThreadLocalRandom.current().nextLong(300, 1_500));
          kills++;
        } else {
          // The log's end once every acknowledged change is numbered (numbering follows the commit).
          Await.until("every change numbered", Duration.ofSeconds(30),
              () -> server.tables().unnumberedChanges() == 0);
          end = quiver.changes("now", List.of(), 1).cursor();
          String target = end;
          Await.until("the consumer caught up with the log's end", Duration.ofMinutes(2),
              () -> caughtUp(lastCursor(journal, start), target));
        }
      } finally {
        consumer.destroyForcibly();
        consumer.waitFor();
      }
    }
    writers.awaitDone();
    List<ChangeEvent> processed = new ArrayList<>();
    int heartbeats = 0;
    for (String line : Files.readAllLines(journal)) {
      JsonNode event = JSON.readTree(line);
      if (event.path("heartbeat").asBoolean(false)) {
        heartbeats++;
      } else {
        processed.add(new ChangeEvent(event.path("cursor").asText(), event.path("shard").asInt(),
            event.path("position").asLong(), event.path("kind").asText(), event.path("change").asText(), event));
      }
    }

    System.out.printf("change feed: %d writes by %d clients, %d events followed by a consumer process killed %d times"
        + " (%d heartbeats)%n", writers.writes(), WRITERS, processed.size(), kills, heartbeats);
    assertThat(processed.stream().map(ChangeEvent::cursor).toList()).as("no event twice").doesNotHaveDuplicates();
    writers.assertSeen(processed);
  }

  /** A consumer process ({@link ChangeConsumerMain}) appending to {@code journal}, from {@code start} when it is empty. */
  private static Process consumer(String start, Path journal) throws IOException {
    return new ProcessBuilder(ProcessHandle.current().info().command().orElse("java"), "-Xmx64m",
        "-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-cp", System.getProperty("java.class.path"),
        ChangeConsumerMain.class.getName(), "http://localhost:" + server.port(), start, journal.toString())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(journal.resolveSibling(journal.getFileName() + ".log").toFile()))
        .start();
  }

  /** Where the consumer stands: the cursor of its journal's last whole line, or {@code start}. */
  private static String lastCursor(Path journal, String start) throws IOException {
    if (!Files.exists(journal)) {
      return start;
    }
    List<String> lines = Files.readAllLines(journal);
    for (int i = lines.size() - 1; i >= 0; i--) {
      try {
        return JSON.readTree(lines.get(i)).path("cursor").asText();
      } catch (IOException halfWritten) {
        // a line being written: the one before it
      }
    }
    return start;
  }

  /** Whether {@code cursor} has reached {@code end} on every shard {@code end} names. */
  private static boolean caughtUp(String cursor, String end) {
    io.quiver.store.ChangeCursor at = io.quiver.store.ChangeCursor.parse(cursor);
    return io.quiver.store.ChangeCursor.parse(end).positions().entrySet().stream()
        .allMatch(shard -> at.position(shard.getKey()) >= shard.getValue());
  }

  @Test
  void aPageOfChanges_andItsRefusals() throws Exception {
    String start = quiver.changes("now", List.of(), 1).cursor();
    Node node = quiver.createNode("board", Map.of("title", "paged"));
    Await.until("the new board logged", Duration.ofSeconds(10),
        () -> !quiver.changes(start, List.of("board"), 10).events().isEmpty());
    QuiverClient.ChangePage page = quiver.changes(start, List.of("board"), 10);
    assertThat(page.events()).anySatisfy(event -> {
      assertThat(event.kind()).isEqualTo("node");
      assertThat(event.change()).isEqualTo("created");
      assertThat(event.event().path("id").asText()).isEqualTo(Long.toString(node.id()));
      assertThat(event.event().path("data").path("title").asText()).isEqualTo("paged");
      assertThat(event.event().path("writtenAt").asText()).isNotEmpty();
    });
    assertThat(quiver.changes(page.cursor(), List.of("board"), 10).events()).isEmpty();
    for (String bad : List.of("not-a-cursor")) {
      QuiverException refused = org.assertj.core.api.Assertions.catchThrowableOfType(
          () -> quiver.changes(bad, List.of(), 10), QuiverException.class);
      assertThat(refused.status()).isEqualTo(400);
    }
    assertThat(org.assertj.core.api.Assertions.catchThrowableOfType(() -> quiver.changes(null, List.of(), 0),
        QuiverException.class).status()).isEqualTo(400);
    assertThat(server.call(io.vertx.core.http.HttpMethod.GET, "/v1/changes?shards=9-2").status()).isEqualTo(400);
    assertThat(server.call(io.vertx.core.http.HttpMethod.GET, "/v1/changes?since=x").status()).isEqualTo(400);
    assertThat(server.call(io.vertx.core.http.HttpMethod.GET, "/v1/changes?types=a;b").status()).isEqualTo(400);
  }
}
