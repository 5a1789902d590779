package io.quiver.dev;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dev stack's data directory, held by one run at a time. A lock file ({@code quiver-dev.lock},
 * holding the owner's pid) is locked for as long as the stack runs, so a second {@code ./quiver
 * dev} on the same directory fails at once, naming the process that has it, instead of waiting a
 * minute for MariaDB to give up on a data directory in use. The operating system releases the lock
 * when its process dies, even by {@code kill -9}; the MariaDB processes such a run started outlive
 * it, though, so whoever takes the lock next stops the orphans still running on the directory,
 * and says so.
 */
final class DataDirectory implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(DataDirectory.class);
  static final String LOCK_FILE = "quiver-dev.lock";
  private static final Duration ORPHAN_STOP = Duration.ofSeconds(10);

  private final Path path;
  private final FileChannel channel;
  private final FileLock lock;

  private DataDirectory(Path path, FileChannel channel, FileLock lock) {
    this.path = path;
    this.channel = channel;
    this.lock = lock;
  }

  /** The directory, absolute. */
  Path path() {
    return path;
  }

  /** Takes the directory, or fails at once naming the run that has it; then stops its orphans. */
  static DataDirectory take(Path dir) {
    Path absolute = dir.toAbsolutePath().normalize();
    try {
      Files.createDirectories(absolute);
      FileChannel channel = FileChannel.open(absolute.resolve(LOCK_FILE), StandardOpenOption.CREATE,
          StandardOpenOption.READ, StandardOpenOption.WRITE);
      FileLock lock;
      try {
        lock = channel.tryLock();
      } catch (OverlappingFileLockException sameProcess) {
        lock = null;
      }
      if (lock == null) {
        String owner = new String(Files.readAllBytes(absolute.resolve(LOCK_FILE)), StandardCharsets.UTF_8).trim();
        channel.close();
        throw new IllegalStateException("the data directory " + absolute + " is in use by another ./quiver dev"
            + (owner.isEmpty() ? "" : " (pid " + owner + ")") + "; stop it first, or give this one --data DIR");
      }
      channel.truncate(0);
      channel.write(ByteBuffer.wrap(Long.toString(ProcessHandle.current().pid()).getBytes(StandardCharsets.UTF_8)), 0);
      stopOrphans(absolute);
      return new DataDirectory(absolute, channel, lock);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot take the data directory " + absolute, e);
    }
  }

  /** MariaDB processes still running on this directory: left by a run that died without stopping them. */
  static List<ProcessHandle> orphans(Path dir) {
    String marker = dir.toAbsolutePath().normalize().resolve("mariadb").toString();
    return ProcessHandle.allProcesses()
        .filter(process -> process.info().commandLine().orElse("").contains(marker))
        .filter(process -> process.info().command().orElse("").endsWith("mariadbd"))
        .toList();
  }

  private static void stopOrphans(Path dir) {
    for (ProcessHandle orphan : orphans(dir)) {
      log.warn("stopping an orphaned MariaDB (pid {}) left running on {} by an earlier run", orphan.pid(), dir);
      orphan.destroy();
      try {
        orphan.onExit().get(ORPHAN_STOP.toMillis(), TimeUnit.MILLISECONDS);
      } catch (Exception stillRunning) {
        orphan.destroyForcibly();
      }
    }
  }

  @Override
  public void close() {
    try {
      lock.release();
      channel.close();
    } catch (IOException e) {
      log.warn("could not release the data directory's lock: {}", e.getMessage());
    }
  }
}
