package io.quiver.store;

import io.quiver.core.GraphException;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * What a bulk import (or one batch of it) did: nodes created, and nodes whose reference an
 * earlier run of the same import had created already; edges created, updated or left as they
 * were (an add that changes nothing, as on a rerun); inverse copies left to the outbox drainer
 * because their hosts did not answer (written shortly, never lost); and every line refused, with
 * why.
 */
public record BulkReport(long lines, long nodesCreated, long nodesExisting, long edgesCreated, long edgesUpdated,
    long edgesUnchanged, long inversesLeft, List<Refused> refused, Map<String, NodeId> nodes) {

  public static final BulkReport EMPTY = new BulkReport(0, 0, 0, 0, 0, 0, 0, List.of(), Map.of());

  /**
   * @param nodes the node of every node line of one batch, created or found, by its reference:
   *     how a caller learns the IDs of what it imported. A sum of reports ({@link #plus}) has none.
   */
  public BulkReport {
    refused = List.copyOf(refused);
    nodes = Map.copyOf(nodes);
  }

  /** Lines refused before they reached the store (unreadable), as a report. */
  public static BulkReport refusedOnly(List<Refused> refused) {
    return new BulkReport(refused.size(), 0, 0, 0, 0, 0, 0, refused, Map.of());
  }

  /** A refused line: its number, the error a single call would have failed with, and why. */
  public record Refused(long line, GraphException.Code code, String message) {}

  /** The two reports' figures added, and their refusals in order; without nodes. */
  public BulkReport plus(BulkReport other) {
    List<Refused> both = new ArrayList<>(refused);
    both.addAll(other.refused);
    return new BulkReport(lines + other.lines, nodesCreated + other.nodesCreated, nodesExisting + other.nodesExisting,
        edgesCreated + other.edgesCreated, edgesUpdated + other.edgesUpdated, edgesUnchanged + other.edgesUnchanged,
        inversesLeft + other.inversesLeft, both, Map.of());
  }
}
