package io.quiver.store.internal.outbox;

import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;
import org.apache.curator.framework.recipes.leader.LeaderLatch;
import org.apache.curator.framework.recipes.leader.LeaderLatchListener;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One lease per host, held by one server at a time: every server joins a Curator
 * {@link LeaderLatch} per host under the lease path, and the holder drains that host's outboxes.
 * A server that dies loses its ZooKeeper session and its leases pass to the others.
 */
final class HostLeases implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(HostLeases.class);

  /** Told when this server gains or loses a host's lease (on a Curator thread). */
  interface Holder {
    void gained(String host);

    void lost(String host);
  }

  private final CuratorFramework curator;
  private final String path;
  private final String serverId;
  private final Holder holder;
  private final Map<String, LeaderLatch> latches = new ConcurrentHashMap<>();
  private boolean closed;

  HostLeases(CuratorFramework curator, String path, String serverId, Holder holder) {
    this.curator = curator;
    this.path = path;
    this.serverId = serverId;
    this.holder = holder;
  }

  /** Joins the lease of every host given and leaves those of hosts no longer there. */
  synchronized void follow(Set<String> hosts) {
    if (closed) {
      return;
    }
    for (String host : hosts) {
      latches.computeIfAbsent(host, this::join);
    }
    for (String host : List.copyOf(latches.keySet())) {
      if (!hosts.contains(host)) {
        leave(host, latches.remove(host));
      }
    }
  }

  private LeaderLatch join(String host) {
    LeaderLatch latch = new LeaderLatch(curator, path + "/" + host, serverId);
    latch.addListener(new LeaderLatchListener() {
      @Override
      public void isLeader() {
        log.info("draining the outboxes of host {}", host);
        holder.gained(host);
      }

      @Override
      public void notLeader() {
        log.info("no longer draining the outboxes of host {}", host);
        holder.lost(host);
      }
    });
    try {
      latch.start();
    } catch (Exception e) {
      throw new IllegalStateException("could not join the outbox lease of host " + host, e);
    }
    return latch;
  }

  private void leave(String host, LeaderLatch latch) {
    holder.lost(host);
    try {
      latch.close();
    } catch (Exception e) {
      log.debug("closing the outbox lease of host {}", host, e);
    }
  }

  @Override
  public synchronized void close() {
    closed = true;
    latches.forEach(this::leave);
    latches.clear();
  }
}
