package io.quiver.embedded;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.concurrent.ThreadLocalRandom;

/** Free ports for servers started in this JVM. */
public final class Ports {
  /** Below Linux's ephemeral range (32768 and up), so outgoing connections do not take it first. */
  private static final int LOWEST = 20_000;
  private static final int COUNT = 12_000;

  private Ports() {}

  /**
   * A port that is free now. The embedded servers bind their port seconds after choosing it
   * (MariaDB installs its system tables first); a port from the ephemeral range could be taken in
   * between by any outgoing connection, so ports are drawn from below it.
   */
  public static int free() {
    for (int attempt = 0; attempt < 200; attempt++) {
      int port = LOWEST + ThreadLocalRandom.current().nextInt(COUNT);
      try (ServerSocket probe = new ServerSocket(port, 1, InetAddress.getLoopbackAddress())) {
        return probe.getLocalPort();
      } catch (IOException taken) {
        // try another
      }
    }
    throw new UncheckedIOException(new IOException("no free port in " + LOWEST + ".." + (LOWEST + COUNT)));
  }
}
