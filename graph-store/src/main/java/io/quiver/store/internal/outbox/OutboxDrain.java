package io.quiver.store.internal.outbox;

import io.quiver.schema.SchemaSource;
import io.quiver.store.ApplierSettings;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.OutboxStats;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.internal.TailedChanges;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import org.apache.curator.framework.CuratorFramework;

/**
 * This server's part in draining outboxes: it holds a lease per host ({@link HostLeases}), runs
 * an {@link OutboxDrainer} for each host whose lease it holds, and follows the shard map as
 * hosts come and go. When the change log is written from the binary log, the same lease runs the
 * host's {@link ChangeTailer}.
 *
 * <h2>Why nothing is lost</h2>
 * Entries are deleted only after their handler succeeded, and a server that dies loses its
 * leases to the others, which find every entry still there. A brief overlap of two drainers at a
 * handover only runs some entries twice, which the handlers make harmless. Forward writes never
 * wait on any of this.
 */
public final class OutboxDrain {
  private final OutboxDrainer.Parts parts;
  private final SchemaSource schemas;
  private final ApplierSettings settings;
  private final ChangeLogSettings changeLog;
  private final HostLeases leases;
  /** What each host's change-log tailer shares; null when the log is not written from the binary log. */
  private final ChangeTailer.Parts tailing;
  private final Map<String, OutboxDrainer> drainers = new ConcurrentHashMap<>();
  private final Map<String, ChangeTailer> tailers = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /**
   * @param router the background pools' router
   * @param client runs every statement of the drainers, under its deadlines
   * @param parallelism entries handled at once per host: no more than the background pool's connections
   * @param changeLog how each shard's change log is written and kept ({@link ChangeSequencer} numbers and trims it;
   *     written from the binary log, a {@link ChangeTailer} per host drained writes it)
   * @param tailed what builds a tailed transaction's entries, when the log is written from the binary log
   * @param inverses writes the inverse copies a tailer finds asked for, when the log is written from the binary log
   * @param user the user a tailer reads each host's binary log as
   * @param password its password
   */
  public OutboxDrain(Vertx vertx, CuratorFramework curator, ShardRouter router, ShardClient client,
      SchemaSource schemas, OutboxHandlers handlers, ApplierSettings settings, ChangeLogSettings changeLog, Clock clock,
      String serverId, int parallelism, TailedChanges tailed, InverseWriter inverses, String user, String password) {
    this.changeLog = changeLog;
    Context context = vertx.getOrCreateContext();
    this.parts = new OutboxDrainer.Parts(vertx, context, router, client, handlers,
        new RetryPolicy(settings), settings.batchSize(), settings.idleDelay().toMillis(),
        settings.busyPause().toMillis(), parallelism, clock);
    this.tailing = changeLog.tailed()
        ? new ChangeTailer.Parts(vertx, context, router, client, tailed, inverses, this::wake, user, password, clock)
        : null;
    this.schemas = schemas;
    this.settings = settings;
    this.leases = new HostLeases(curator, settings.leasePath(), serverId, new HostLeases.Holder() {
      @Override
      public void gained(String host) {
        startDraining(host);
      }

      @Override
      public void lost(String host) {
        stopDraining(host);
      }
    });
  }

  /**
   * Joins the lease of every host in the map, and leaves those of hosts gone from it; each tailer
   * follows its host's primary.
   */
  public void follow(ShardMap map) {
    if (!closed) {
      leases.follow(map.hosts().keySet());
      tailers.values().forEach(tailer -> tailer.follow(map));
    }
  }

  /**
   * An entry was committed on {@code shard}'s outbox by this server: if this server drains its
   * host, the drainer passes at once instead of at its next poll.
   */
  public void wake(int shard) {
    parts.router().shardMap().rangeOf(shard).ifPresent(range -> {
      OutboxDrainer drainer = drainers.get(range.host());
      if (drainer != null) {
        drainer.wake();
      }
    });
  }

  /** Each host this server drains, with its outbox figures measured now; a host that cannot be measured is left out. */
  public Future<Map<String, OutboxStats>> stats() {
    Map<String, Future<OutboxStats>> measuring = new TreeMap<>();
    drainers.forEach((host, drainer) -> {
      ChangeTailer tailer = tailers.get(host);
      // Written from the binary log, no change waits to be numbered: what waits is the tailer's.
      measuring.put(host, tailer == null ? drainer.measure() : drainer.measure().map(measured -> new OutboxStats(
          measured.pending(), measured.parked(), measured.oldestPendingAgeMillis(), tailer.lagMillis())));
    });
    return Future.join(new ArrayList<>(measuring.values())).otherwiseEmpty().map(done -> {
      Map<String, OutboxStats> stats = new TreeMap<>();
      measuring.forEach((host, measured) -> {
        if (measured.succeeded()) {
          stats.put(host, measured.result());
        }
      });
      return stats;
    });
  }

  private void startDraining(String host) {
    if (closed) {
      return;
    }
    OutboxDrainer drainer =
        new OutboxDrainer(host, parts, new TombstoneCollector(parts.client(), schemas, settings, parts.clock()),
            new ChangeSequencer(host, parts.client(), changeLog, parts.clock()));
    OutboxDrainer previous = drainers.put(host, drainer);
    if (previous != null) {
      previous.stop();
    }
    drainer.start();
    if (tailing != null) {
      ChangeTailer tailer = new ChangeTailer(host, tailing);
      ChangeTailer before = tailers.put(host, tailer);
      if (before != null) {
        before.stop();
      }
      tailer.start();
    }
  }

  private void stopDraining(String host) {
    OutboxDrainer drainer = drainers.remove(host);
    if (drainer != null) {
      drainer.stop();
    }
    ChangeTailer tailer = tailers.remove(host);
    if (tailer != null) {
      tailer.stop();
    }
  }

  /** Leaves every lease and stops every drainer; the answer waits for the passes under way. */
  public Future<Void> close() {
    closed = true;
    leases.close();
    List<Future<Void>> stopping = new ArrayList<>();
    drainers.values().forEach(drainer -> stopping.add(drainer.stop()));
    drainers.clear();
    tailers.values().forEach(tailer -> stopping.add(tailer.stop()));
    tailers.clear();
    return Future.join(stopping).mapEmpty();
  }
}
