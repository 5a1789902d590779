package io.quiver.embedded;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A kept MariaDB server's error log, where an operator finds it ({@code <home>/mariadb.log}), and
 * its lines that name a failure repeated in this process's log: every {@code [ERROR]} line, and
 * the disk-full notes ({@code Disk is full writing …}, {@code Waiting for someone to free space}),
 * which MariaDB writes as warnings while every COMMIT on the host waits. Without them a full disk
 * looks like a host that merely got slow.
 *
 * <p>Read by a daemon thread of its own every {@link #POLL}, from where the previous read ended
 * (so lines logged before this start are not repeated); file reads never happen on an event loop.
 */
final class MariaDbErrorLog implements AutoCloseable {
  static final Duration POLL = Duration.ofMillis(500);
  private static final String FILE = "mariadb.log";

  private final Path file;
  private final Logger log;
  private final Thread reader;
  private volatile boolean closed;
  private long position;

  private MariaDbErrorLog(Path file, String name) {
    this.file = file;
    this.log = LoggerFactory.getLogger("io.quiver.embedded.mariadb." + name);
    this.reader = new Thread(this::follow, "mariadb-log-" + name);
    reader.setDaemon(true);
  }

  /** Where a server kept under {@code home} writes its error log. */
  static Path fileUnder(Path home) {
    return home.toAbsolutePath().resolve(FILE);
  }

  /** Follows {@code home}'s error log from its current end, naming the server {@code name} in this process's log. */
  static MariaDbErrorLog follow(Path home, String name) {
    MariaDbErrorLog follower = new MariaDbErrorLog(fileUnder(home), name);
    try {
      follower.position = Files.exists(follower.file) ? Files.size(follower.file) : 0;
    } catch (IOException e) {
      follower.position = 0;
    }
    follower.reader.start();
    return follower;
  }

  private void follow() {
    while (!closed) {
      try {
        readNew();
        Thread.sleep(POLL.toMillis());
      } catch (InterruptedException e) {
        return;
      } catch (IOException e) {
        // The file is rotated or not written yet: read again at the next poll.
      }
    }
  }

  private void readNew() throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    try (RandomAccessFile in = new RandomAccessFile(file.toFile(), "r")) {
      if (in.length() < position) {
        position = 0;
      }
      in.seek(position);
      String line;
      while ((line = in.readLine()) != null) {
        String text = new String(line.getBytes(StandardCharsets.ISO_8859_1), StandardCharsets.UTF_8);
        if (text.contains("[ERROR]")) {
          log.error("{}", text);
        } else if (text.contains("Disk is full") || text.contains("free space")) {
          log.warn("{}", text);
        }
      }
      position = in.getFilePointer();
    }
  }

  @Override
  public void close() {
    closed = true;
    reader.interrupt();
  }
}
