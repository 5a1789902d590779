package io.quiver.store.testing;

import java.util.ArrayList;
import java.util.List;
import org.testcontainers.containers.MySQLContainer;
import org.testcontainers.utility.DockerImageName;

/**
 * MySQL 8 hosts in containers, where a Docker engine exists. Stopping a host pauses its
 * container, so it comes back on the same address with its data.
 */
final class MySql8Hosts implements MySqlHosts {
  private final List<MySQLContainer<?>> containers = new ArrayList<>();

  MySql8Hosts(int count) {
    for (int i = 0; i < count; i++) {
      startAnother();
    }
  }

  @Override
  public synchronized void startAnother() {
    MySQLContainer<?> container = new MySQLContainer<>(DockerImageName.parse("mysql:8.4"))
        .withUsername("root")
        .withPassword("quiver")
        .withCommand("--max-connections=500");
    container.start();
    containers.add(container);
  }

  @Override
  public List<String> addresses() {
    return containers.stream().map(c -> c.getHost() + ":" + c.getMappedPort(3306)).toList();
  }

  @Override
  public String user() {
    return "root";
  }

  @Override
  public String password() {
    return "quiver";
  }

  @Override
  public void stop(int host) {
    MySQLContainer<?> container = containers.get(host);
    container.getDockerClient().pauseContainerCmd(container.getContainerId()).exec();
  }

  @Override
  public void start(int host) {
    MySQLContainer<?> container = containers.get(host);
    container.getDockerClient().unpauseContainerCmd(container.getContainerId()).exec();
  }

  /** A paused container is what {@link #stop} makes already: a host that hangs. */
  @Override
  public void freeze(int host) {
    stop(host);
  }

  @Override
  public void thaw(int host) {
    start(host);
  }

  @Override
  public void close() {
    containers.forEach(MySQLContainer::stop);
  }
}
