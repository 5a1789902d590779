package io.quiver.store;

import io.quiver.store.shard.ShardMap;
import io.vertx.core.Future;

/**
 * What one process holds open to reach the fleet — a reactive pool per host, the routing from
 * shards to pools, the outbox drainer — and the faces it offers: the graph operations
 * ({@link #store()}), the change feed, telemetry, and the repairs' scans. Built by
 * {@link GraphStore#builder}; closed once, by whoever built it.
 */
public interface GraphBackend {

  /** The graph operations, uncached. */
  GraphStore store();

  /** Every change committed through this backend, announced in this process. */
  ChangeFeed changes();

  /** Every shard's durable log of its committed changes, as consumers outside the process follow it. */
  ChangeLog changeLog();

  /** The change log's consumer groups: members splitting the shards, and the positions they commit. */
  ChangeGroups changeGroups();

  StoreTelemetry telemetry();

  /**
   * The scans that mend an edge type's copies, a unique index, and parked outbox entries, on the
   * background pools. The fleet module's admin service runs them; nothing else in a backend
   * changes the fleet (schema, shard map, tables): that is the fleet module's.
   */
  Repairs repairs();

  /**
   * Starts a run of the bulk import named {@code name} ({@link BulkImport}), holding the name until
   * the run is closed; a rerun under the same name finds the nodes the earlier run created.
   * INVALID_ARGUMENT for a name that is not 1 to 64 of letters, digits and {@code _ . : -}
   * starting with a letter or a digit (so never {@code .} or {@code ..});
   * UNAVAILABLE while another run of the name is under way. Runs on the background pools, beside
   * the drainer, so an import never takes a request's connection.
   */
  Future<BulkImport> bulkImport(String name);

  /** The shard map this backend routes by now. */
  ShardMap shardMap();

  /**
   * Another process committed {@code change} (its announcement came over the cache channel), which
   * may have left outbox work on the shard it touched: if this process drains that shard's host,
   * its drainer looks at once instead of at its next idle pass. A write of this backend wakes the
   * drainer by itself; this is for the writes of the others.
   */
  void committedElsewhere(GraphChange change);

  /** Stops draining, then closes the pools. */
  Future<Void> close();
}
