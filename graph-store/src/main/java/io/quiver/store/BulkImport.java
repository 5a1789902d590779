package io.quiver.store;

import io.vertx.core.Future;
import java.util.List;

/**
 * One run of a named bulk import ({@link GraphBackend#bulkImport}): lines written in batches,
 * many rows per statement and one transaction per shard, with counts and outbox entries kept
 * exactly as single writes keep them, and inverses applied in batches on their own shards.
 *
 * <h2>References and reruns</h2>
 * A node line's reference is recorded with the node, in its transaction, under the import's name.
 * A later line of the import names the node by its reference; so does a rerun of the import,
 * which finds the reference and creates nothing twice (edges are adds, which a rerun leaves
 * unchanged). A reference is defined once per import; an edge may use it only after its line.
 *
 * <h2>Refusals</h2>
 * A line that cannot be written (an unknown type, data the schema refuses, a missing node, an
 * unknown reference) is refused in the report and the rest go on. A failure of the fleet (a
 * host not answering) fails the batch: what committed stays committed, and a rerun finishes the
 * rest. Lines are written in the order given within a batch: nodes first, then edges.
 *
 * <h2>One run of a name at a time</h2>
 * A run holds its name from {@link GraphBackend#bulkImport} until {@link #close}: across the fleet
 * (an ephemeral znode under {@code <schemaPath>-imports}) and in this process. A second run of the
 * name meanwhile — a client retrying an import that is still running — is refused UNAVAILABLE,
 * since two runs would not see each other's references and could create a node twice. A run
 * whose claim vanished (its ZooKeeper session expired) fails its next batch.
 */
public interface BulkImport {

  /** The most lines one {@link #write} takes. */
  int MAX_BATCH = 10_000;

  /** Writes one batch of lines; answers what it did. */
  Future<BulkReport> write(List<BulkLine> lines);

  /** Lets go of the import's name; idempotent. */
  Future<Void> close();
}
