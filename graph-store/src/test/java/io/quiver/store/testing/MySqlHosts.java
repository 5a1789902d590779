package io.quiver.store.testing;

import java.util.List;

/** The MySQL hosts behind the tests: real servers that a test may stop and start again. */
public interface MySqlHosts extends AutoCloseable {
  /** {@code host:port} of each host's primary. */
  List<String> addresses();

  String user();

  String password();

  /** Starts one more host, empty, as the last of {@link #addresses()}: for tests that grow the fleet. */
  void startAnother();

  /** Takes host i down, keeping its data. */
  void stop(int host);

  /** Brings host i back on the same address. */
  void start(int host);

  /** Host i stops answering without closing anything: a hung process, not a dead one. */
  void freeze(int host);

  /** Host i answers again, as it was. */
  void thaw(int host);

  @Override
  void close();
}
