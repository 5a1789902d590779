package io.quiver.store;

import io.quiver.schema.Schema;
import io.vertx.core.Future;
import java.util.function.Consumer;

/**
 * The scans that find and mend damage a backend can reach: an edge type's two copies, a unique
 * field's index, and the outbox entries parked after their retries ran out. Reactive, like the
 * store: each scan pages through the shards on the background pools, batch after batch, and
 * completes with its report; nothing here blocks a thread. Deciding when to run one — a unique
 * index's build behind its fence, an operator's command — is the fleet module's
 * ({@code io.quiver.fleet.AdminService}).
 */
public interface Repairs {

  /**
   * Makes both copies of every edge of {@code edgeType} and its inverse equal, as the applier would
   * (FriendFeed's Cleaner). Safe while clients write: a fix never overwrites a newer write, and a
   * pair with an entry still pending is counted in flight, not fixed. {@code progress} hears a line
   * per shard. INVALID_ARGUMENT for an unknown type or one without an inverse.
   */
  Future<RepairReport> edges(String edgeType, Consumer<String> progress);

  /**
   * Checks the index of a unique field under {@code schema} (which declares it, building or active)
   * against the nodes: restores a missing claim, removes an orphaned one older than the lease, and
   * reports every value held twice. INVALID_ARGUMENT for an unknown type or a field that is not
   * unique.
   */
  Future<UniqueRepairReport> unique(Schema schema, String type, String field, Consumer<String> progress);

  /**
   * Sets every parked outbox entry on {@code host}'s shards (every host's when null) to be retried
   * at once, and wakes their drainers; answers how many. INVALID_ARGUMENT for a host not in the map.
   */
  Future<Long> retryParked(String host);

  /**
   * Succeeds once everything {@code host} had committed when asked has what it owes the other
   * copies: each change in its shard's log, each forward copy's inverse written or in an outbox.
   * With the log written by the writes that holds at once, since a write commits its change row
   * and its entry with itself. Written from the binary log ({@code changes.source: binlog}) it
   * waits for the host's tailer to pass that point, for up to 10 s, and fails UNAVAILABLE if no
   * tailer gets there (none runs, or a host it writes to refuses). A shard move's cut-over asks it
   * of the source before the shards leave it.
   */
  Future<Void> caughtUp(String host);
}
