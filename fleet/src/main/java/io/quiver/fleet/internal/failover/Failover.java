package io.quiver.fleet.internal.failover;

import io.quiver.core.GraphException;
import io.quiver.core.zk.ServedVersions;
import io.quiver.fleet.FailoverReport;
import io.quiver.fleet.FailoverSettings;
import io.quiver.fleet.ReplicaAcks;
import io.quiver.fleet.internal.MapChanges;
import io.quiver.fleet.internal.replica.Replicas;
import io.quiver.schema.SchemaSource;
import io.quiver.store.Repairs;
import io.quiver.store.ShardLayout;
import io.quiver.store.shard.GtidPosition;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.shard.ShardState;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.apache.curator.framework.CuratorFramework;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One host's failover, step by step, as Vitess' emergency reparent and Pinterest's ZooKeeper
 * switch do it:
 * <ol>
 *   <li><b>Refuse writes</b> to the host's shards through the map (read-only), and wait for every
 *       server to acknowledge that version — the same write fence a shard move's cut-over uses —
 *       or, past {@link FailoverSettings#fenceTimeout}, go on: the primary is gone, or fenced next.
 *   <li><b>Fence the old primary</b> if it answers ({@code read_only}): a frozen host that thaws
 *       takes no write.
 *   <li><b>Choose</b> the reachable replica that received the most of the primary's log, let it
 *       apply all of it, and <b>promote</b> it (its channel forgotten, writable).
 *   <li><b>Publish</b> the map naming it the host's primary; every server's pools, drainer and
 *       cache follow the map. The host's other replicas are pointed at it and confirm its writes.
 *   <li><b>Accept writes</b> again on the shards that were read-write, and <b>record</b> the
 *       failover. Last, every edge type with an inverse is repaired ({@link InverseMender}, beside
 *       the coordinator, which goes back to probing at once): a write the old primary committed
 *       alone (answered "may or may not", never "applied") may have had its inverse applied from
 *       there; the repair makes both copies agree.
 * </ol>
 * Semi-synchronous acknowledgements ({@link ReplicaAcks}) are why the promoted replica holds every
 * write a client was told was applied. A planned switchover ({@link #switchover}) is the same flip
 * with a live primary: fenced before the replica catches up with it exactly, then made a replica of
 * the new primary. Blocking JDBC and ZooKeeper, on the coordinator's thread.
 */
public final class Failover implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(Failover.class);
  /** How long a replica may take to apply what it received before it is promoted. */
  private static final Duration APPLY_TIMEOUT = Duration.ofSeconds(30);
  private static final Duration REACH_TIMEOUT = Duration.ofSeconds(1);

  private final MapChanges maps;
  private final Replicas replicas;
  private final ReplicaAcks acks;
  private final FailoverSettings settings;
  private final CuratorFramework curator;
  private final String mapServedPath;
  private final FailoverLog history;
  /** The repair that ends an unplanned failover, run beside the coordinator rather than on its thread. */
  private final InverseMender mender;
  private final Clock clock;

  /** @param mapServedPath where every server acknowledges the map version it writes under (the fence) */
  public Failover(MapChanges maps, Replicas replicas, ReplicaAcks acks, FailoverSettings settings,
      CuratorFramework curator, String mapServedPath, FailoverLog history, Repairs repairs, SchemaSource schemas,
      Clock clock) {
    this.maps = maps;
    this.replicas = replicas;
    this.acks = acks;
    this.settings = settings;
    this.curator = curator;
    this.mapServedPath = mapServedPath;
    this.history = history;
    this.mender = new InverseMender(repairs, schemas);
    this.clock = clock;
  }

  /**
   * Fails {@code failed} over, unless the map no longer names it the host's primary (another
   * coordinator did it). Answers the record, or null when there was nothing to do.
   */
  FailoverReport run(Host failed, long unreachableMs) throws Exception {
    ShardMap map = maps.stored();
    Host host = map.hosts().get(failed.name());
    if (host == null || !host.primary().equals(failed.primary()) || host.replicas().isEmpty()) {
      return null;
    }
    log.warn("host {}: its primary {} has not answered for {} ms; failing over to one of {}", host.name(),
        host.primary(), unreachableMs, host.replicas());
    FailoverReport report = flip(map, host, null, unreachableMs);
    mender.request();
    return report;
  }

  /**
   * A planned switchover of {@code hostName} to its replica {@code to} (the one that received the
   * most, when null): writes refused, the primary made read-only once every server stopped writing,
   * the replica caught up with it exactly, promoted, the map flipped, and the old primary made a
   * replica of the new one — nothing lost, nothing to mend. INVALID_ARGUMENT for an unknown host or
   * replica, or a host without replicas.
   */
  public FailoverReport switchover(String hostName, String to) throws Exception {
    ShardMap map = maps.stored();
    Host host = map.hosts().get(hostName);
    if (host == null) {
      throw GraphException.invalid("host '" + hostName + "' is not in the shard map; it has " + map.hosts().keySet());
    }
    if (host.replicas().isEmpty() || to != null && !host.replicas().contains(to)) {
      throw GraphException.invalid("host '" + hostName + "' has no replica " + (to == null ? "" : to + " ")
          + "to switch over to; it has " + host.replicas());
    }
    // The old primary becomes a replica, which must be able to take over in turn.
    replicas.requireLogging(host, host.primary());
    log.info("host {}: switching over from {} to {}", hostName, host.primary(), to == null ? "its replica" : to);
    return flip(map, host, to, -1);
  }

  /**
   * The flip both share. Planned ({@code unreachableMs} negative): the old primary must be fenced,
   * the replica catches up with it exactly, and it rejoins as a replica. Unplanned: the old primary
   * is fenced only if it answers, and left out.
   */
  private FailoverReport flip(ShardMap map, Host host, String to, long unreachableMs) throws Exception {
    boolean planned = unreachableMs < 0;
    String at = clock.instant().toString();
    long began = System.nanoTime();
    Steps steps = new Steps();
    List<ShardSpan> writable = spans(map, host.name());
    refuseWrites(writable);
    steps.done("writes refused");
    String chosen;
    String position;
    try {
      boolean fenced = replicas.fence(host, REACH_TIMEOUT);
      if (planned && !fenced) {
        throw GraphException.unavailable("host " + host.name() + ": its primary " + host.primary()
            + " could not be made read-only; nothing was switched");
      }
      steps.done(fenced ? "old primary fenced" : "old primary silent");
      chosen = to != null ? to : choose(host);
      if (planned) {
        replicas.catchUp(host, chosen, APPLY_TIMEOUT);
        steps.done("replica caught up");
      }
      position = replicas.promote(host, chosen, APPLY_TIMEOUT);
    } catch (Exception failedPromotion) {
      if (planned) {
        replicas.unfence(host);
      }
      acceptWrites(writable);
      throw failedPromotion;
    }
    steps.done("promoted");
    if (!planned) {
      skipChangePositions(map, host, chosen);
      steps.done("change log moved on");
    }
    ShardMap promoted = maps.change(new ShardMapChange.Promote(host.name(), chosen));
    steps.done("map published");
    Host now = promoted.hosts().get(host.name());
    // The new primary waits for a confirmation from the start (when it will have a replica): writes
    // accepted before its replicas are pointed at it wait for the first, never go unconfirmed.
    replicas.configureAcks(now, planned || !now.replicas().isEmpty(), acks);
    acceptWrites(writable);
    long refusedMs = TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - began);
    steps.done("writes accepted");
    List<String> repointed = new ArrayList<>();
    for (String other : now.replicas()) {
      try {
        replicas.add(now, other, acks, line -> log.info("host {}: {}", host.name(), line));
        repointed.add(other);
      } catch (Exception unreachable) {
        log.warn("host {}: replica {} could not be pointed at the new primary {}: {}", host.name(), other, chosen,
            unreachable.getMessage());
      }
    }
    if (planned) {
      rejoin(now, host.primary());
      repointed.add(host.primary());
    }
    if (repointed.isEmpty()) {
      replicas.configureAcks(now, false, acks);
    }
    steps.done("replicas pointed at it");
    FailoverReport report = new FailoverReport(host.name(), host.primary(), chosen, at, planned, Math.max(0,
        unreachableMs), refusedMs, position, repointed, planned ? FailoverReport.REPLICA : FailoverReport.SILENT);
    history.record(report);
    log.warn("host {} {} from {} to {} (position {}); its shards refused writes for {} ms ({})", host.name(),
        planned ? "switched over" : "failed over", host.primary(), chosen, position, refusedMs, steps);
    return report;
  }

  /**
   * Moves the change log of every shard of {@code host} on the promoted replica far past the newest
   * position there ({@link ShardLayout#changeLogFailover}): the lost primary may have given positions
   * alone, which a consumer may have read, and none of them is given again to another change. A
   * switchover skips it (its replica caught up with everything). Failing, it is logged, not fatal:
   * the failover goes on, and a consumer could miss what the old primary numbered alone.
   */
  private void skipChangePositions(ShardMap map, Host host, String chosen) {
    List<ShardLayout.Statement> marks = new ArrayList<>();
    for (int shard : map.shardsOn(host.name())) {
      marks.add(ShardLayout.changeLogFailover(shard, clock.instant()));
    }
    try {
      replicas.prepare(host, chosen, marks);
    } catch (Exception e) {
      log.warn("host {}: the change log of its shards could not be moved past the old primary's positions on {} ({});"
          + " a consumer that read a position the old primary gave alone may miss the change given it again",
          host.name(), chosen, e.getMessage());
    }
  }

  /** Makes the fenced old primary at {@code address} a replica of {@code host}'s new primary, and lists it. */
  private void rejoin(Host host, String address) throws Exception {
    replicas.demote(host, address, acks);
    maps.change(new ShardMapChange.AddReplica(host.name(), address));
  }

  /**
   * Settles the old primary of an unplanned failover still {@link FailoverReport#SILENT}, if it
   * answers within {@code reach}: it is fenced (read-only, no longer waiting for confirmations), then
   * rejoins as a replica of the host's primary if every transaction it logged is the new primary's
   * too ({@link Replicas#logged}: the last sequence number of each domain and server it holds);
   * otherwise it is {@link FailoverReport#DIVERGED} — it committed writes alone that no replica
   * received — and left out, read-only. The record says which. Answers the settled record, or
   * {@code report} when the old primary is still silent (or the map changed under it: the host gone,
   * or the address listed again by hand).
   */
  FailoverReport settleOldPrimary(FailoverReport report, java.time.Duration reach) throws Exception {
    ShardMap map = maps.stored();
    Host host = map.hosts().get(report.host());
    String address = report.from();
    if (report.planned() || !FailoverReport.SILENT.equals(report.oldPrimary()) || host == null
        || host.primary().equals(address) || host.replicas().contains(address)
        || !replicas.fence(new Host(report.host(), address, List.of()), reach)) {
      return report;
    }
    String logged = replicas.logged(new Host(report.host(), address, List.of()));
    String primaryLogged = replicas.logged(host);
    FailoverReport settled;
    if (GtidPosition.stateCovers(primaryLogged, logged)) {
      rejoin(host, address);
      settled = report.withOldPrimary(FailoverReport.REPLICA);
      log.info("host {}: its old primary {} answers again and rejoined as a replica of {} (it logged {}, all of them"
          + " the new primary's)", host.name(), address, host.primary(), logged);
    } else {
      settled = report.withOldPrimary(FailoverReport.DIVERGED);
      log.warn("host {}: its old primary {} answers again but diverged: it logged {}, and {} holds {}; it committed"
          + " writes no replica received (answered \"may or may not\"), so it is left out, read-only: inspect it, then"
          + " reseed it with quiver hosts add-replica after emptying it", host.name(), address, logged, host.primary(),
          primaryLogged);
    }
    history.update(settled);
    return settled;
  }

  /** How long each step took, for the log. */
  private static final class Steps {
    private final StringBuilder done = new StringBuilder();
    private long since = System.nanoTime();

    void done(String step) {
      long now = System.nanoTime();
      done.append(done.length() == 0 ? "" : ", ").append(step).append(' ')
          .append(TimeUnit.NANOSECONDS.toMillis(now - since)).append(" ms");
      since = now;
    }

    @Override
    public String toString() {
      return done.toString();
    }
  }

  /** The host's read-write shards, as contiguous spans. */
  private static List<ShardSpan> spans(ShardMap map, String host) {
    List<ShardSpan> spans = new ArrayList<>();
    int from = -1;
    int last = -2;
    for (int shard : map.shardsOn(host)) {
      boolean writable = map.stateOf(shard) == ShardState.READ_WRITE;
      if (writable && shard == last + 1 && from >= 0) {
        last = shard;
        continue;
      }
      if (from >= 0) {
        spans.add(new ShardSpan(from, last));
        from = -1;
      }
      if (writable) {
        from = shard;
        last = shard;
      }
    }
    if (from >= 0) {
      spans.add(new ShardSpan(from, last));
    }
    return spans;
  }

  private void refuseWrites(List<ShardSpan> spans) throws Exception {
    ShardMap readOnly = null;
    for (ShardSpan span : spans) {
      readOnly = maps.change(new ShardMapChange.SetState(span, ShardState.READ_ONLY));
    }
    if (readOnly == null) {
      return;
    }
    try {
      ServedVersions.awaitAll(curator, mapServedPath, readOnly.version(), settings.fenceTimeout());
    } catch (TimeoutException late) {
      log.warn("not every server acknowledged map version {} within {} ms ({}); promoting anyway: the old primary"
          + " is gone or fenced", readOnly.version(), settings.fenceTimeout().toMillis(), late.getMessage());
    }
  }

  private void acceptWrites(List<ShardSpan> spans) throws Exception {
    for (ShardSpan span : spans) {
      maps.change(new ShardMapChange.SetState(span, ShardState.READ_WRITE));
    }
  }

  /** The reachable replica that received the most of the primary's log. */
  private String choose(Host host) {
    String best = null;
    long bestCount = -1;
    for (String replica : host.replicas()) {
      String received = replicas.received(host, replica, REACH_TIMEOUT);
      if (received == null) {
        continue;
      }
      long count = GtidPosition.parse(received).transactions();
      if (count > bestCount) {
        best = replica;
        bestCount = count;
      }
    }
    if (best == null) {
      throw GraphException.unavailable("host " + host.name() + ": no replica of " + host.replicas()
          + " can be reached to promote");
    }
    return best;
  }

  /** Starts no further mending pass; one under way ends by itself. */
  @Override
  public void close() {
    mender.close();
  }
}
