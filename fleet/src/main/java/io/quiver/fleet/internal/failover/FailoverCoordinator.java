package io.quiver.fleet.internal.failover;

import io.quiver.fleet.FailoverReport;
import io.quiver.fleet.FailoverSettings;
import io.quiver.fleet.internal.MapChanges;
import io.quiver.fleet.internal.ShardProvisioner;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import java.sql.Connection;
import java.sql.Statement;
import java.time.Clock;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.apache.curator.framework.CuratorFramework;
import org.apache.zookeeper.CreateMode;
import org.apache.zookeeper.KeeperException;
import org.apache.zookeeper.data.Stat;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Watches the primary of every host that has replicas and fails over one that stops answering.
 * One coordinator at a time among the servers: whoever holds the ephemeral znode
 * {@code <shardMapPath>-failover-leader} (with its server id, created by its current session) leads;
 * the others try to create it at every tick, so the next takes over when the leader's session ends.
 * Every ZooKeeper call is synchronous, on the coordinator's thread: a server that stops while
 * ZooKeeper is silent leaves no background recipe behind to fail into a closed client. The leader asks each replicated primary {@code SELECT 1} every
 * {@link FailoverSettings#probeEvery} over a connection of its own whose every wait is bounded, so a
 * frozen host counts as one that does not answer; one that has not answered for
 * {@link FailoverSettings#detectAfter} is failed over ({@link Failover}). A host whose failover
 * failed (no replica reachable, say) is tried again at the next probe that finds it silent.
 *
 * <p>Its own daemon thread: blocking JDBC and ZooKeeper, never an event loop, never the admin jobs'.
 */
public final class FailoverCoordinator implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(FailoverCoordinator.class);

  private final MapChanges maps;
  private final ShardProvisioner hosts;
  private final Failover failover;
  private final FailoverSettings settings;
  private final Clock clock;
  private final CuratorFramework curator;
  private final String leaderPath;
  private final byte[] serverId;
  private final ScheduledExecutorService thread = Executors.newSingleThreadScheduledExecutor(work -> {
    Thread named = new Thread(work, "quiver-failover");
    named.setDaemon(true);
    return named;
  });
  /** Since when each silent primary has not answered (ms on the clock), by its address. Coordinator thread only. */
  private final Map<String, Long> silentSince = new HashMap<>();
  private final FailoverLog history;
  private long ticks;
  /** Whether this process led at its last tick. Coordinator thread only, then read by close after it stopped. */
  private volatile boolean leading;

  /** @param leaderPath where the coordinators elect one ({@code <shardMapPath>-failover-leader}) */
  public FailoverCoordinator(MapChanges maps, ShardProvisioner hosts, Failover failover,
      FailoverSettings settings, CuratorFramework curator, String leaderPath, FailoverLog history, String serverId,
      Clock clock) {
    this.maps = maps;
    this.hosts = hosts;
    this.history = history;
    this.failover = failover;
    this.settings = settings;
    this.clock = clock;
    this.curator = curator;
    this.leaderPath = leaderPath;
    this.serverId = serverId.getBytes(java.nio.charset.StandardCharsets.UTF_8);
  }

  /** Starts ticking: each tick takes or keeps the lead, and the leader probes. */
  public void start() {
    long every = settings.probeEvery().toMillis();
    thread.scheduleWithFixedDelay(this::tick, every, every, TimeUnit.MILLISECONDS);
  }

  private void tick() {
    try {
      leading = lead();
      if (!leading) {
        silentSince.clear();
        return;
      }
      ShardMap map = maps.stored();
      for (Host host : map.hosts().values()) {
        if (!host.replicas().isEmpty()) {
          probe(host);
        }
      }
      silentSince.keySet().removeIf(address -> map.hosts().values().stream()
          .noneMatch(host -> host.primary().equals(address)));
      if (ticks++ % FENCE_EVERY == 0) {
        settleOldPrimaries();
      }
    } catch (Exception | Error failure) {
      if (failure instanceof InterruptedException || Thread.currentThread().isInterrupted()) {
        // close() interrupts a pass in flight (reading the map from ZooKeeper, say): stopping, not failing.
        Thread.currentThread().interrupt();
        return;
      }
      log.warn("the failover coordinator's pass failed: {}", failure.toString());
    }
  }

  private void probe(Host host) throws Exception {
    long now = clock.millis();
    if (answers(host)) {
      silentSince.remove(host.primary());
      return;
    }
    long since = silentSince.computeIfAbsent(host.primary(), address -> now);
    if (now - since < settings.detectAfter().toMillis()) {
      return;
    }
    try {
      FailoverReport report = failover.run(host, now - since);
      if (report != null) {
        silentSince.remove(host.primary());
      }
    } catch (Exception failed) {
      log.error("host {}: the failover of {} failed: {}; trying again while it stays silent", host.name(),
          host.primary(), failed.getMessage());
    }
  }

  /**
   * Whether this process leads: it created the leader znode now, or holds it from its current
   * session. False when ZooKeeper cannot be reached (the lead is then nobody's until it can).
   */
  private boolean lead() {
    if (!curator.getZookeeperClient().isConnected()) {
      return false;
    }
    try {
      try {
        curator.create().creatingParentsIfNeeded().withMode(CreateMode.EPHEMERAL).forPath(leaderPath, serverId);
        log.info("this server coordinates failovers ({})", leaderPath);
        return true;
      } catch (KeeperException.NodeExistsException taken) {
        Stat stat = new Stat();
        byte[] holder = curator.getData().storingStatIn(stat).forPath(leaderPath);
        return java.util.Arrays.equals(holder, serverId)
            && stat.getEphemeralOwner() == curator.getZookeeperClient().getZooKeeper().getSessionId();
      }
    } catch (InterruptedException stopping) {
      Thread.currentThread().interrupt();
      return false;
    } catch (Exception unreachable) {
      return false;
    }
  }

  /** Deposed primaries are looked for every this many ticks. */
  private static final int FENCE_EVERY = 4;

  /**
   * A primary deposed while it was frozen (or cut off) could not be fenced then; when it answers
   * again it is made read-only and stops waiting for confirmations, so it takes no write of its own
   * accord, then rejoins as a replica or is reported diverged ({@link Failover#settleOldPrimary}).
   * Each old primary still silent is tried until it answers.
   */
  private void settleOldPrimaries() throws Exception {
    for (FailoverReport report : history.read()) {
      if (!report.planned() && FailoverReport.SILENT.equals(report.oldPrimary())) {
        try {
          failover.settleOldPrimary(report, FENCE_REACH);
        } catch (Exception failed) {
          log.warn("host {}: its old primary {} answers, but could not be settled: {}; trying again", report.host(),
              report.from(), failed.getMessage());
        }
      }
    }
  }

  /** How long a deposed primary is given to answer a fencing attempt. */
  private static final java.time.Duration FENCE_REACH = java.time.Duration.ofMillis(300);

  /** Whether the primary answers {@code SELECT 1}, every wait bounded by half the detection time. */
  private boolean answers(Host host) {
    java.time.Duration bound = settings.detectAfter().dividedBy(2);
    try (Connection connection = hosts.connect(host, bound, bound);
        Statement statement = connection.createStatement()) {
      statement.execute("SELECT 1");
      return true;
    } catch (Exception silent) {
      return false;
    }
  }

  /** Stops ticking and, if this process led and ZooKeeper answers, lets go of the lead at once. */
  @Override
  public void close() {
    thread.shutdownNow();
    try {
      thread.awaitTermination(2, TimeUnit.SECONDS);
      if (leading && curator.getZookeeperClient().isConnected()) {
        curator.delete().forPath(leaderPath);
      }
    } catch (Exception ignored) {
      // The ephemeral znode goes with the session anyway.
    }
  }
}
