package io.quiver.store;

import io.quiver.schema.UniqueIndex;
import java.util.List;

/**
 * What a scan of one unique field's index found and fixed: the repair, and the build of a newly
 * declared index, which is the same scan.
 *
 * @param type the node type
 * @param field the unique field
 * @param nodesScanned stored nodes read, on every shard
 * @param claimsScanned claims read, on every home shard
 * @param claimsRestored values a node holds whose claim was missing (or stale, and taken over): written
 * @param orphansRemoved claims no node backs (a crash between claim and commit, a lost release): deleted
 * @param inFlight claims younger than the lease whose node does not hold the value yet: writes under
 *     way, left alone
 * @param duplicates values held by more than one node (the first 1,000): the index cannot be
 *     trusted, nor turn active, until they are changed
 * @param active whether the index is active after the scan
 */
public record UniqueRepairReport(String type, String field, long nodesScanned, long claimsScanned,
    long claimsRestored, long orphansRemoved, long inFlight, List<UniqueIndex.Duplicate> duplicates, boolean active) {

  public UniqueRepairReport {
    duplicates = List.copyOf(duplicates);
  }

  public UniqueRepairReport activated() {
    return new UniqueRepairReport(type, field, nodesScanned, claimsScanned, claimsRestored, orphansRemoved, inFlight,
        duplicates, true);
  }
}
