package io.quiver.api.client;

import com.fasterxml.jackson.databind.ObjectMapper;
import io.quiver.client.ChangeEvent;
import io.quiver.client.QuiverClient;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.RandomAccessFile;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Iterator;
import java.util.List;
import java.util.stream.Stream;

/**
 * A consumer of the change log in a process of its own, as a deployed one runs, for tests that kill
 * it ({@code kill -9}) at random points: it follows the log from where its journal ends and appends
 * each event it processes to the journal, one JSON line each (heartbeats included: they say where it
 * stands). Processing an event and keeping its cursor are one write, so a restarted consumer resumes
 * exactly after the last event it processed; a line the kill cut in half is dropped on restart, and
 * its event read again.
 *
 * <p>Arguments: the server's base URL, the cursor to start from when the journal is empty, the
 * journal's path.
 */
public final class ChangeConsumerMain {
  private ChangeConsumerMain() {}

  public static void main(String[] args) throws IOException {
    URI server = URI.create(args[0]);
    Path journal = Path.of(args[2]);
    String cursor = resumeFrom(journal, args[1]);
    try (QuiverClient quiver = QuiverClient.create(server);
        FileOutputStream out = new FileOutputStream(journal.toFile(), true);
        Stream<ChangeEvent> events = quiver.follow(cursor, List.of())) {
      Iterator<ChangeEvent> next = events.iterator();
      while (next.hasNext()) {
        out.write((next.next().event().toString() + "\n").getBytes(StandardCharsets.UTF_8));
      }
    }
  }

  /** The cursor of the journal's last whole line, after cutting off a half-written one; {@code start} when empty. */
  static String resumeFrom(Path journal, String start) throws IOException {
    if (!Files.exists(journal)) {
      return start;
    }
    byte[] bytes = Files.readAllBytes(journal);
    int end = bytes.length;
    while (end > 0 && bytes[end - 1] != '\n') {
      end--;
    }
    try (RandomAccessFile file = new RandomAccessFile(journal.toFile(), "rw")) {
      file.setLength(end);
    }
    if (end == 0) {
      return start;
    }
    int begin = end - 1;
    while (begin > 0 && bytes[begin - 1] != '\n') {
      begin--;
    }
    String last = new String(bytes, begin, end - 1 - begin, StandardCharsets.UTF_8);
    return new ObjectMapper().readTree(last).path("cursor").asText();
  }
}
