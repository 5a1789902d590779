package io.quiver.cache.internal;

import io.quiver.store.Edge;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import java.util.Collections;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;

/**
 * What is known of single edges of one list (from, type): per target asked about, the edge as a
 * point read answers it — active or archived — or that there is none; all true at one version of
 * the list. What TAO's cache keeps for {@code assoc_get} of given targets, beside the list's
 * newest edges ({@link EdgeWindow}): a point read of an edge far down a long list, or of a list
 * never paged, is answered from memory the second time.
 *
 * <h2>Whole lists</h2>
 * Most lists are short (a social graph's median node links to a handful), and half of the point
 * reads of TAO's published workload ask about a pair that has no edge — each pair asked about
 * once or twice, the list asked about often. So a short list is read whole, active and archived
 * edges, when its points are filled ({@link io.quiver.store.GraphStore#lookupEdges}), and its
 * points are then {@linkplain #whole() whole}: every target is known, a target not held has no
 * edge. The points of a whole list answer any point read of it, which is what lets the point
 * reads hit as often as node reads do.
 *
 * <h2>Changes applied in place</h2>
 * As a window does: the points at list version <i>v</i> ignore a change they already reflect
 * (≤ <i>v</i>), apply change <i>v + 1</i> and are dropped after a gap. A change makes its
 * target's point what the write left — the edge, active or archived, or none after a removal —
 * whether the target was known before or not: at the next version, the change is the newest
 * word on it; whole points stay whole. A write to a list of which nothing is held starts its
 * points ({@link #of}): the edge just written is read next more often than not.
 *
 * <p>Immutable. The map is copied once per change (a change copies it, nothing copies it
 * again) and its weight moves by what the change replaced, not recounted (a hot list's points
 * hold hundreds of targets, and every write to it makes new ones).
 */
public final class EdgePoints {
  /**
   * The most targets kept of one list: a full multi-get's worth, and a little more. Past it the
   * oldest answers go (and whole points are whole no longer), so a hot list asked about many
   * targets keeps the newest.
   */
  public static final int MAX_TARGETS = 512;
  private static final int EMPTY_WEIGHT = 64;

  /** Per target known: its edge, or null for none; whole points hold no nulls. */
  private final Map<NodeId, Edge> edges;
  private final long version;
  private final boolean whole;
  private final int weight;

  /** Points asked about at {@code version}: per target, its edge, or null for none. */
  public EdgePoints(Map<NodeId, Edge> edges, long version) {
    this(new LinkedHashMap<>(edges), version, false, weightOf(edges.values()));
  }

  /** Every live edge of a list at {@code version}: a target not among them has none. */
  public static EdgePoints whole(Map<NodeId, Edge> edges, long version) {
    return counted(new LinkedHashMap<>(edges), version, true);
  }

  /** Points of {@code edges}, which nobody else holds, weighed (whole ones without nulls: none is known absent). */
  private static EdgePoints counted(LinkedHashMap<NodeId, Edge> edges, long version, boolean whole) {
    if (whole) {
      edges.values().removeIf(Objects::isNull);
    }
    return new EdgePoints(edges, version, whole, weightOf(edges.values()));
  }

  /**
   * Takes {@code edges}, which nobody else holds, of {@code weight}; drops the oldest targets past
   * {@link #MAX_TARGETS} (a hot list keeps its newest answers), and whole points that lose one
   * are whole no longer.
   */
  private EdgePoints(LinkedHashMap<NodeId, Edge> edges, long version, boolean whole, int weight) {
    Iterator<Edge> oldest = edges.values().iterator();
    boolean trimmed = false;
    while (edges.size() > MAX_TARGETS) {
      weight -= weightOf(oldest.next());
      oldest.remove();
      trimmed = true;
    }
    this.edges = Collections.unmodifiableMap(edges);
    this.version = version;
    this.whole = whole && !trimmed;
    this.weight = weight;
  }

  private static int weightOf(Iterable<Edge> edges) {
    int weight = EMPTY_WEIGHT;
    for (Edge edge : edges) {
      weight += weightOf(edge);
    }
    return weight;
  }

  private static int weightOf(Edge edge) {
    return edge == null ? 48 : 96 + edge.data().size() * 48;
  }

  /** What {@code change} alone says: its target's edge (or none) at the list's version after it. */
  public static EdgePoints of(GraphChange.EdgeChanged change) {
    LinkedHashMap<NodeId, Edge> edges = new LinkedHashMap<>();
    edges.put(change.to(), change.edge());
    return new EdgePoints(edges, change.listVersion(), false, EMPTY_WEIGHT + weightOf(change.edge()));
  }

  /** Per target known, its edge or null for none (whole points: every live edge, no nulls). */
  public Map<NodeId, Edge> edges() {
    return edges;
  }

  /** The list's version at which every point is true. */
  public long version() {
    return version;
  }

  /** Whether these are every live edge of the list, so that any target not held has none. */
  public boolean whole() {
    return whole;
  }

  /**
   * These points and {@code read}'s, when both are true at one version (whole if either is);
   * otherwise the newer alone (a read at an older version than these is refused by its stamp
   * before it gets here, except across a gap, where the newer is the truth). At most
   * {@link #MAX_TARGETS}: past it, {@code read}'s and the newest of these (the oldest answers go
   * first).
   */
  public EdgePoints plus(EdgePoints read) {
    if (read.version != version) {
      return read.version > version ? read : this;
    }
    LinkedHashMap<NodeId, Edge> merged = new LinkedHashMap<>(edges);
    read.edges.keySet().forEach(merged::remove);
    merged.putAll(read.edges);
    return counted(merged, version, whole || read.whole);
  }

  /** Whether the edge to {@code to} is known: present, or known absent. */
  public boolean knows(NodeId to) {
    return whole || edges.containsKey(to);
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
    // One copy, weighed by what changed (whole points hold no nulls, and none is put into them).
    LinkedHashMap<NodeId, Edge> next = new LinkedHashMap<>(edges);
    int weight = this.weight;
    if (edges.containsKey(change.to())) {
      weight -= weightOf(next.remove(change.to()));
    }
    if (change.edge() != null || !whole) {
      next.put(change.to(), change.edge());
      weight += weightOf(change.edge());
    }
    return Optional.of(new EdgePoints(next, change.listVersion(), whole, weight));
  }

  /** An estimate of the bytes held, as {@link EdgeWindow#weight()} counts them. */
  public int weight() {
    return weight;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof EdgePoints points && points.version == version && points.whole == whole
        && points.edges.equals(edges);
  }

  @Override
  public int hashCode() {
    return Objects.hash(edges, version, whole);
  }

  @Override
  public String toString() {
    return "EdgePoints[" + (whole ? "whole, " : "") + "version=" + version + ", edges=" + edges + "]";
  }
}
