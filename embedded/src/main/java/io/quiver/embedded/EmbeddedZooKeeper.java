package io.quiver.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Properties;
import org.apache.zookeeper.server.embedded.ExitHandler;
import org.apache.zookeeper.server.embedded.ZooKeeperServerEmbedded;

/** A standalone ZooKeeper server from ZooKeeper's own jar, its data kept in a directory. */
public final class EmbeddedZooKeeper implements AutoCloseable {
  private final ZooKeeperServerEmbedded server;
  private final String connectString;

  private EmbeddedZooKeeper(ZooKeeperServerEmbedded server, String connectString) {
    this.server = server;
    this.connectString = connectString;
  }

  /**
   * Starts a server.
   *
   * @param home where its data goes; null for a temporary directory
   * @param port the client port; 0 for any free port
   */
  public static EmbeddedZooKeeper start(Path home, int port) {
    try {
      Path base = home != null ? Files.createDirectories(home) : Files.createTempDirectory("quiver-zk");
      int chosen = port == 0 ? Ports.free() : port;
      Properties config = new Properties();
      config.setProperty("clientPort", Integer.toString(chosen));
      config.setProperty("clientPortAddress", "127.0.0.1");
      config.setProperty("tickTime", "500");
      config.setProperty("initLimit", "10");
      config.setProperty("syncLimit", "5");
      // The admin server would take port 8080, which is Quiver's own.
      config.setProperty("admin.enableServer", "false");
      config.setProperty("4lw.commands.whitelist", "ruok,stat");
      ZooKeeperServerEmbedded server = ZooKeeperServerEmbedded.builder()
          .baseDir(base)
          .configuration(config)
          .exitHandler(ExitHandler.LOG_ONLY)
          .build();
      server.start(30_000);
      return new EmbeddedZooKeeper(server, "127.0.0.1:" + chosen);
    } catch (IOException e) {
      throw new UncheckedIOException("cannot prepare ZooKeeper's directory", e);
    } catch (Exception e) {
      throw new IllegalStateException("ZooKeeper did not start", e);
    }
  }

  public String connectString() {
    return connectString;
  }

  @Override
  public void close() {
    server.close();
  }
}
