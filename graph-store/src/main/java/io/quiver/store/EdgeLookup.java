package io.quiver.store;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Single edges read with the versions of their lists, all as of one moment per shard
 * ({@link GraphStore#lookupEdges}): what a cache keeps of single edges, so that it can apply the
 * list's later changes in place as it does to a window.
 *
 * @param found the edges asked for that exist, active or archived; an ID asked for and not here has none
 * @param versions every asked list's version ({@link GraphChange.EdgeChanged#listVersion()}) at the moment read
 * @param whole the lists read whole: {@code found} holds every live edge of each (asked for or
 *     not), so a target of one of them not in {@code found} has no edge
 */
public record EdgeLookup(Map<EdgeId, Edge> found, Map<EdgeListId, Long> versions, Set<EdgeListId> whole) {
  public EdgeLookup {
    found = Map.copyOf(Objects.requireNonNull(found, "found"));
    versions = Map.copyOf(Objects.requireNonNull(versions, "versions"));
    whole = Set.copyOf(Objects.requireNonNull(whole, "whole"));
  }
}
