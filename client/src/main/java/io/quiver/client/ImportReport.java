package io.quiver.client;

import java.util.List;
import java.util.Map;

/**
 * What a bulk import has done ({@link QuiverClient#bulkImport}): so far, while it runs, and in
 * the end with every refused line and the node each reference names.
 *
 * @param nodes the node ID of each node line's reference (created, or found from an earlier run);
 *     empty in a progress report
 * @param refused the refused lines (the server lists the first thousand; {@code refusedCount} says
 *     how many there were); empty in a progress report
 */
public record ImportReport(long lines, long nodesCreated, long nodesExisting, long edgesCreated, long edgesUpdated,
    long edgesUnchanged, long inversesLeft, long refusedCount, List<Refused> refused, Map<String, Long> nodes) {

  public ImportReport {
    refused = List.copyOf(refused);
    nodes = Map.copyOf(nodes);
  }

  /** A line the import refused: its number, the error code and why. */
  public record Refused(long line, String code, String message) {}
}
