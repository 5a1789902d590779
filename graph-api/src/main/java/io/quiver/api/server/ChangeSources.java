package io.quiver.api.server;

import io.quiver.core.GraphException;
import io.quiver.store.ChangeLogSettings;
import java.nio.charset.StandardCharsets;
import java.util.UUID;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;

/**
 * Which source of the change log each server of a fleet uses, kept beside its outbox leases, so
 * that a fleet never runs two. A server logging from the writes drains a host without tailing it,
 * and moves the host's tail position to "now" at every trim; a server logging from the binary log
 * leaves its writes' inverses to the tail. Beside each other, the first would pass over the
 * second's inverses (docs/operations.md, "The change log").
 *
 * <p>Each server keeps an ephemeral node {@code <outbox.leasePath>-sources/<id>} holding its source
 * for as long as its ZooKeeper session lasts. A server starting keeps its own first, then reads
 * every other one's, and refuses to start if one of another source runs: whichever of two starting
 * together reads second refuses. Blocking, on the thread that starts the server, before its
 * backend exists; its leaving sends the node's deletion without waiting (the session's end
 * removes it in any case), so a server stopping with ZooKeeper away is not held up.
 */
final class ChangeSources implements AutoCloseable {
  private final CuratorFramework curator;
  private final String path;

  private ChangeSources(CuratorFramework curator, String path) {
    this.curator = curator;
    this.path = path;
  }

  /**
   * Keeps this server's source under {@code leasePath}'s and checks every other server's there.
   *
   * @throws GraphException INVALID_ARGUMENT when a server of the other source runs
   */
  static ChangeSources join(CuratorFramework curator, String leasePath, ChangeLogSettings changeLog)
      throws Exception {
    String sources = leasePath + "-sources";
    String own = UUID.randomUUID().toString();
    // What a server does, not what it is set to: a log that is off leaves its inverses in outboxes too.
    ChangeLogSettings.Source source = changeLog.tailed() ? ChangeLogSettings.Source.BINARY_LOG
        : ChangeLogSettings.Source.WRITES;
    curator.create().creatingParentContainersIfNeeded().withMode(CreateMode.EPHEMERAL)
        .forPath(sources + "/" + own, source.name().getBytes(StandardCharsets.UTF_8));
    ChangeSources joined = new ChangeSources(curator, sources + "/" + own);
    try {
      for (String other : curator.getChildren().forPath(sources)) {
        String theirs = other.equals(own) ? null : sourceOf(curator, sources + "/" + other);
        if (theirs != null && !theirs.equals(source.name())) {
          throw GraphException.invalid("a running server (" + sources + "/" + other + ") writes this fleet's change"
              + " log from " + spelled(theirs) + ", and this one is set to write it from " + spelled(source.name())
              + ": every server of a fleet must use the same changes.source, switched with writes stopped"
              + " (docs/operations.md, \"The change log\")");
        }
      }
      return joined;
    } catch (Exception | Error e) {
      joined.close();
      throw e;
    }
  }

  /** The source another server keeps; null when it left meanwhile. */
  private static String sourceOf(CuratorFramework curator, String path) throws Exception {
    try {
      return new String(curator.getData().forPath(path), StandardCharsets.UTF_8);
    } catch (KeeperException.NoNodeException gone) {
      return null;
    }
  }

  /** A source as its setting is spelled. */
  private static String spelled(String source) {
    return source.equals(ChangeLogSettings.Source.BINARY_LOG.name()) ? "the binary log (changes.source: binlog)"
        : "the writes (changes.source: writes)";
  }

  /** Leaves: this server's source is no longer kept. */
  @Override
  public void close() throws Exception {
    curator.delete().quietly().inBackground().forPath(path);
  }
}
