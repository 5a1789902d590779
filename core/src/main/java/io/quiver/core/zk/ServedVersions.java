package io.quiver.core.zk;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeoutException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.nodes.PersistentNode;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Which version of a document every live process serves: each registers an ephemeral znode
 * under one directory holding the newest version it has acknowledged, and an administrator
 * waits until all of them have acknowledged a version before acting on it — a fence, as Vitess
 * waits for every tablet to pick up a new routing before a cut-over. A process that is gone (its
 * session expired) drops out; one that is cut off but not yet expired keeps the fence closed,
 * which is what a fence is for.
 *
 * <p>What "acknowledged" means is the registering process's promise: the graph store
 * acknowledges a schema version only once no write begun under an older one is still in flight.
 */
public final class ServedVersions implements AutoCloseable {
  private static final long POLL_MILLIS = 25;

  private final PersistentNode registration;
  private final AtomicLong acknowledged = new AtomicLong(-1);

  /** Registers this process under {@code directory} as {@code id}, having acknowledged {@code version}. */
  public ServedVersions(CuratorFramework curator, String directory, String id, long version) {
    acknowledged.set(version);
    registration = new PersistentNode(curator, CreateMode.EPHEMERAL, false, directory + "/" + id, bytes(version));
    registration.start();
  }

  /** Acknowledges {@code version}, if it is newer than what was; the znode follows in the background. */
  public void acknowledge(long version) {
    long before = acknowledged.getAndAccumulate(version, Math::max);
    if (version > before) {
      try {
        registration.setData(bytes(version));
      } catch (Exception notYetCreated) {
        // The node is created (with the newest data) once ZooKeeper answers; nothing is lost.
      }
    }
  }

  public long acknowledged() {
    return acknowledged.get();
  }

  /**
   * Blocks until every process registered under {@code directory} has acknowledged
   * {@code version} or a newer one; a TimeoutException names those that have not.
   */
  public static void awaitAll(CuratorFramework curator, String directory, long version, Duration timeout)
      throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (true) {
      List<String> behind = behind(curator, directory, version);
      if (behind.isEmpty()) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new TimeoutException("not every server serves version " + version + " within " + timeout.toMillis()
            + " ms: " + behind);
      }
      Thread.sleep(POLL_MILLIS);
    }
  }

  /** The registered processes that have not acknowledged {@code version}, each as {@code id@version}. */
  private static List<String> behind(CuratorFramework curator, String directory, long version) throws Exception {
    List<String> behind = new ArrayList<>();
    List<String> ids;
    try {
      ids = curator.getChildren().forPath(directory);
    } catch (KeeperException.NoNodeException none) {
      return behind;
    }
    for (String id : ids) {
      try {
        long served = Long.parseLong(new String(curator.getData().forPath(directory + "/" + id), StandardCharsets.UTF_8));
        if (served < version) {
          behind.add(id + "@" + served);
        }
      } catch (KeeperException.NoNodeException gone) {
        // It left between the listing and the read.
      }
    }
    return behind;
  }

  private static byte[] bytes(long version) {
    return Long.toString(version).getBytes(StandardCharsets.UTF_8);
  }

  /** Removes the registration: this process no longer writes. */
  @Override
  public void close() throws java.io.IOException {
    registration.close();
  }
}
