package io.quiver.shard;

import java.util.ConcurrentModificationException;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads and publishes the shard map document in ZooKeeper. Publishing is compare-and-set: the
 * new map's version must be the stored version plus one, and the write is conditional on the
 * znode version read, so two operators can never overwrite each other's change.
 *
 * <p>Blocking: for startup, admin and provisioning, never for an event loop.
 */
public final class ShardMapStore {
  public static final String DEFAULT_PATH = "/quiver/shard-map";

  private final CuratorFramework client;
  private final String path;

  public ShardMapStore(CuratorFramework client, String path) {
    this.client = client;
    this.path = path;
  }

  public String path() {
    return path;
  }

  public Optional<ShardMap> read() throws Exception {
    try {
      return Optional.of(ShardMapJson.parse(client.getData().forPath(path)));
    } catch (KeeperException.NoNodeException absent) {
      return Optional.empty();
    }
  }

  /**
   * Publishes {@code map}, whose version must be one more than the stored map's (or any version
   * when none is stored).
   *
   * @throws ConcurrentModificationException when the stored map is not the expected one
   */
  public void publish(ShardMap map) throws Exception {
    Stat stat = new Stat();
    byte[] stored;
    try {
      stored = client.getData().storingStatIn(stat).forPath(path);
    } catch (KeeperException.NoNodeException absent) {
      create(map);
      return;
    }
    long storedVersion = ShardMapJson.parse(stored).version();
    if (map.version() != storedVersion + 1) {
      throw new ConcurrentModificationException(
          "shard map version " + map.version() + " does not follow the stored version " + storedVersion);
    }
    try {
      client.setData().withVersion(stat.getVersion()).forPath(path, ShardMapJson.toBytes(map));
    } catch (KeeperException.BadVersionException raced) {
      throw new ConcurrentModificationException("the shard map changed while publishing version " + map.version());
    }
  }

  private void create(ShardMap map) throws Exception {
    try {
      client.create().creatingParentsIfNeeded().forPath(path, ShardMapJson.toBytes(map));
    } catch (KeeperException.NodeExistsException raced) {
      throw new ConcurrentModificationException("the shard map was created while publishing version " + map.version());
    }
  }
}
