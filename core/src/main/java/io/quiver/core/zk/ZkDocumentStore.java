package io.quiver.core.zk;

import io.quiver.core.GraphException;
import java.util.Optional;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;

/**
 * Reads and publishes one versioned document at a znode. Publishing is compare-and-set twice
 * over: the new document's version must be the stored one plus one, and the write is
 * conditional on the znode version that was read, so two writers never overwrite each other.
 *
 * <p>Blocking: for startup, admin and provisioning work, never for an event loop.
 */
public class ZkDocumentStore<T> {
  private final CuratorFramework client;
  private final String path;
  private final DocumentCodec<T> codec;

  public ZkDocumentStore(CuratorFramework client, String path, DocumentCodec<T> codec) {
    this.client = client;
    this.path = path;
    this.codec = codec;
  }

  public String path() {
    return path;
  }

  public Optional<T> read() throws Exception {
    try {
      return Optional.of(codec.parse(client.getData().forPath(path)));
    } catch (KeeperException.NoNodeException absent) {
      return Optional.empty();
    }
  }

  /**
   * Publishes a document whose version is one more than the stored one's (any version when
   * nothing is stored yet).
   *
   * @throws GraphException {@link GraphException.Code#VERSION_CONFLICT} when the stored document is
   *     not the one expected (another publisher got there first)
   */
  public void publish(T document) throws Exception {
    Stat stat = new Stat();
    byte[] stored;
    try {
      stored = client.getData().storingStatIn(stat).forPath(path);
    } catch (KeeperException.NoNodeException absent) {
      create(document);
      return;
    }
    long storedVersion = codec.version(codec.parse(stored));
    long version = codec.version(document);
    if (version != storedVersion + 1) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT,
          path + ": version " + version + " does not follow the stored version " + storedVersion);
    }
    try {
      client.setData().withVersion(stat.getVersion()).forPath(path, codec.toBytes(document));
    } catch (KeeperException.BadVersionException raced) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT,
          path + " changed while version " + version + " was published");
    }
  }

  private void create(T document) throws Exception {
    try {
      client.create().creatingParentsIfNeeded().forPath(path, codec.toBytes(document));
    } catch (KeeperException.NodeExistsException raced) {
      throw GraphException.of(GraphException.Code.VERSION_CONFLICT,
          path + " was created while version " + codec.version(document) + " was published");
    }
  }
}
