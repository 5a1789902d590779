package io.quiver.store.internal.outbox;

import io.quiver.schema.EdgeType;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ApplierSettings;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.EdgesTable;
import io.vertx.core.Future;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;

/**
 * Removes edge tombstones past their grace period ({@link ApplierSettings#tombstoneGrace()}), at
 * most once per {@link ApplierSettings#gcInterval()} and a bounded number per table and run. The
 * grace must outlast the longest time an entry can wait in an outbox, or a late add could
 * resurrect a newer removal. Run by the drainer of each host, over that host's shards.
 */
final class TombstoneCollector {
  static final int PER_TABLE_AND_RUN = 1000;

  private final ShardClient client;
  private final SchemaSource schemas;
  private final ApplierSettings settings;
  private final Clock clock;
  private long lastRunUs;

  TombstoneCollector(ShardClient client, SchemaSource schemas, ApplierSettings settings, Clock clock) {
    this.client = client;
    this.schemas = schemas;
    this.settings = settings;
    this.clock = clock;
  }

  Future<Void> collectIfDue(List<ShardRoute> routes) {
    long now = SqlValues.nowMicros(clock);
    if (now - lastRunUs < settings.gcInterval().toNanos() / 1000) {
      return Future.succeededFuture();
    }
    lastRunUs = now;
    long cutoff = now - settings.tombstoneGrace().toNanos() / 1000;
    List<Future<?>> deletes = new ArrayList<>();
    for (ShardRoute route : routes) {
      for (EdgeType type : schemas.current().edgeTypes().values()) {
        EdgesTable table = new EdgesTable(type);
        deletes.add(client.write(route, sql -> table.collectTombstones(sql, route, cutoff, PER_TABLE_AND_RUN)));
      }
    }
    return Future.join(deletes).mapEmpty();
  }
}
