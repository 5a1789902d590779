package io.quiver.embedded;

import java.io.IOException;
import java.nio.file.DirectoryNotEmptyException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.UUID;
import org.apache.commons.io.FileUtils;

/**
 * What the embedded hosts share across processes, made once per machine: MariaDB's binaries
 * ({@link MariaDbBinaries}) and their TLS certificate ({@link MariaDbCertificate}), under
 * {@code ~/.cache/quiver/mariadb} (or the directory named by the system property
 * {@value #LOCATION_PROPERTY}).
 *
 * <p>Each entry is made in a directory of its own and then renamed into place whole, so two
 * processes starting at once never see half of one; the loser of the race deletes its copy and
 * uses the winner's.
 */
final class MachineCache {
  /** A system property naming the directory to share under. */
  static final String LOCATION_PROPERTY = "quiver.mariadb.binaries";

  /** Makes an entry's content in the (empty, existing) directory it is given. */
  interface Maker {
    void make(Path partial) throws IOException, InterruptedException;
  }

  private MachineCache() {}

  /** The entry {@code name}, made first by {@code maker} if this machine has none yet. */
  static Path entry(String name, Maker maker) throws IOException, InterruptedException {
    Path dir = root().resolve(name);
    if (Files.isDirectory(dir)) {
      return dir;
    }
    Files.createDirectories(dir.getParent());
    Path partial = dir.resolveSibling(name + ".making-" + UUID.randomUUID());
    try {
      Files.createDirectories(partial);
      maker.make(partial);
      Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
    } catch (FileAlreadyExistsException | DirectoryNotEmptyException raced) {
      // Another process made it first: theirs is whole, ours goes.
    } finally {
      FileUtils.deleteQuietly(partial.toFile());
    }
    return dir;
  }

  private static Path root() {
    return Path.of(System.getProperty(LOCATION_PROPERTY,
        Path.of(System.getProperty("user.home"), ".cache", "quiver", "mariadb").toString()));
  }
}
