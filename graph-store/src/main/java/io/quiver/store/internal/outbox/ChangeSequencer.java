package io.quiver.store.internal.outbox;

import io.quiver.store.ChangeLogSettings;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.internal.table.TailPositionsTable;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Gives each shard's logged changes their positions ({@link ChangesTable#sequence}) and trims them
 * past retention ({@link ChangesTable#trim}): background work of the one server that drains a
 * host's outboxes (its lease), at each of its passes, so one sequencer numbers a shard at a time.
 * A write wakes the pass ({@code OutboxDrain#wake}), so a change is readable a pass after its
 * commit — a few milliseconds on a quiet host.
 *
 * <p>When a tailer writes the log from the binary log ({@link ChangeTailer}) its rows come
 * numbered, so the numbering finds nothing to do; the trim is the same.
 *
 * <p>The numbering runs in a transaction the drainer lends it, its pass's last on the host, which
 * also deletes the outbox entries the pass handled ({@code OutboxDrainer#close}): one COMMIT for
 * both.
 */
final class ChangeSequencer {
  /** Rows numbered per shard and pass; a pass that numbered a full batch is followed by another at once. */
  static final int BATCH = 1000;
  /** Rows trimmed per shard and statement. */
  private static final int TRIM_BATCH = 10_000;

  private final String host;
  private final ShardClient client;
  private final ChangeLogSettings settings;
  private final Clock clock;
  private long lastTrimUs;

  ChangeSequencer(String host, ShardClient client, ChangeLogSettings settings, Clock clock) {
    this.host = host;
    this.client = client;
    this.settings = settings;
    this.clock = clock;
  }

  /** Which of {@code routes}' shards hold logged changes without a position: one statement. */
  Future<Set<Integer>> waiting(List<ShardRoute> routes) {
    return routes.isEmpty() ? Future.succeededFuture(Set.of())
        : client.read(routes.get(0), sql -> ChangesTable.INSTANCE.shardsToSequence(sql, routes));
  }

  /**
   * Numbers every shard of {@code routes} in the caller's transaction, all sent at once: a pass
   * costs its host one transaction and one round trip, not one of each per shard (issue 37: at a
   * few passes a second per busy host, the per-shard transactions were a statement or more per
   * client write). Answers how many rows it numbered.
   */
  static Future<Integer> number(SqlConnection connection, List<ShardRoute> routes) {
    List<Future<Integer>> numbered = new ArrayList<>(routes.size());
    routes.forEach(route -> numbered.add(ChangesTable.INSTANCE.sequence(connection, route, BATCH)));
    return Future.all(numbered).map(all -> numbered.stream().mapToInt(Future::result).sum());
  }

  /**
   * Every {@link ChangeLogSettings#trimEvery()}, the first pass included: every shard's changes
   * older than the retention window, or beyond its row bound, deleted; and where the writes log
   * their own changes, the host's tail position moved to its binary log's position now
   * ({@link TailPositionsTable#markLogged}).
   */
  Future<Void> trimIfDue(List<ShardRoute> routes) {
    long now = SqlValues.nowMicros(clock);
    if (now - lastTrimUs < settings.trimEvery().toNanos() / 1000) {
      return Future.succeededFuture();
    }
    lastTrimUs = now;
    Future<Void> marked = !settings.writtenByWrites() || routes.isEmpty() ? Future.succeededFuture()
        : client.write(routes.get(0), sql -> TailPositionsTable.INSTANCE.markLogged(sql, host));
    long before = now - settings.retention().toNanos() / 1000;
    List<Future<Integer>> trims = new ArrayList<>();
    for (ShardRoute route : routes) {
      trims.add(client.write(route,
          sql -> ChangesTable.INSTANCE.trim(sql, route, before, settings.maxPerShard(), TRIM_BATCH)));
    }
    return Future.join(marked, Future.join(trims)).mapEmpty();
  }
}
