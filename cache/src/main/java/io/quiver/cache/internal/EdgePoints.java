package io.quiver.cache.internal;

import io.quiver.store.Edge;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;

/**
 * What is known of single edges of one list (from, type): per target asked about, the edge as a
 * point read answers it — active or archived — or that there is none; all true at one version of
 * the list. What TAO's cache keeps for {@code assoc_get} of given targets, beside the list's
 * newest edges ({@link EdgeWindow}): a point read of an edge far down a long list, or of a list
 * never paged, is answered from memory the second time.
 *
 * <h2>Changes applied in place</h2>
 * As a window does: the points at list version <i>v</i> ignore a change they already reflect
 * (≤ <i>v</i>), apply change <i>v + 1</i> and are dropped after a gap. A change makes its
 * target's point what the write left — the edge, active or archived, or none after a removal —
 * whether the target was known before or not: at the next version, the change is the newest
 * word on it. A write to a list of which nothing is held starts its points ({@link #of}): the
 * edge just written is read next more often than not.
 *
 * @param edges per target known: its edge, or null for none
 * @param version the list's version at which every point is true
 */
public record EdgePoints(Map<NodeId, Edge> edges, long version) {
  /**
   * The most targets kept of one list: a full multi-get's worth, and a little more. Past it the
   * oldest answers go, so a hot list asked about many targets keeps the newest.
   */
  public static final int MAX_TARGETS = 512;

  public EdgePoints {
    edges = java.util.Collections.unmodifiableMap(newestKept(new LinkedHashMap<>(edges)));
  }

  /** {@code edges} without its oldest targets past {@link #MAX_TARGETS}: a hot list keeps its newest answers. */
  private static Map<NodeId, Edge> newestKept(LinkedHashMap<NodeId, Edge> edges) {
    Iterator<NodeId> oldest = edges.keySet().iterator();
    for (int over = edges.size() - MAX_TARGETS; over > 0; over--) {
      oldest.next();
      oldest.remove();
    }
    return edges;
  }

  /** What {@code change} alone says: its target's edge (or none) at the list's version after it. */
  public static EdgePoints of(GraphChange.EdgeChanged change) {
    Map<NodeId, Edge> edges = new LinkedHashMap<>();
    edges.put(change.to(), change.edge());
    return new EdgePoints(edges, change.listVersion());
  }

  /**
   * These points and {@code read}'s, when both are true at one version; otherwise the newer
   * alone (a read at an older version than these is refused by its stamp before it gets here,
   * except across a gap, where the newer is the truth). At most {@link #MAX_TARGETS}: past it,
   * {@code read}'s and the newest of these (the oldest answers go first).
   */
  public EdgePoints plus(EdgePoints read) {
    if (read.version != version) {
      return read.version > version ? read : this;
    }
    LinkedHashMap<NodeId, Edge> merged = new LinkedHashMap<>(edges);
    read.edges.keySet().forEach(merged::remove);
    merged.putAll(read.edges);
    return new EdgePoints(merged, version);
  }

  /** Whether the edge to {@code to} is known: present, or known absent. */
  public boolean knows(NodeId to) {
    return edges.containsKey(to);
  }

  /** The edge to {@code to}, if known and present. Ask {@link #knows} first. */
  public Optional<Edge> edgeTo(NodeId to) {
    return Optional.ofNullable(edges.get(to));
  }

  /** These points after {@code change}; empty after a gap in the versions. */
  public Optional<EdgePoints> after(GraphChange.EdgeChanged change) {
    if (change.listVersion() <= version) {
      return Optional.of(this);
    }
    if (change.listVersion() != version + 1) {
      return Optional.empty();
    }
    LinkedHashMap<NodeId, Edge> next = new LinkedHashMap<>(edges);
    next.remove(change.to());
    next.put(change.to(), change.edge());
    return Optional.of(new EdgePoints(next, change.listVersion()));
  }

  /** An estimate of the bytes held, as {@link EdgeWindow#weight()} counts them. */
  public int weight() {
    int weight = 64;
    for (Edge edge : edges.values()) {
      weight += edge == null ? 48 : 96 + edge.data().size() * 48;
    }
    return weight;
  }
}
