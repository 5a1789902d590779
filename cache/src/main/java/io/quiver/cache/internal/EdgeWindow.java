package io.quiver.cache.internal;

import io.quiver.store.Cursor;
import io.quiver.store.Edge;
import io.quiver.store.EdgeListHead;
import io.quiver.store.EdgePage;
import io.quiver.store.EdgeQuery;
import io.quiver.store.EdgeState;
import io.quiver.store.GraphChange;
import io.quiver.store.NodeId;
import io.quiver.store.Order;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * The newest edges of one list, newest first, with the list's count and version: a prefix of
 * the list in its newest-first order (every edge outside the window ranks below every edge in
 * it), or the whole list.
 *
 * <h2>Changes applied in place</h2>
 * A committed change to the list ({@link GraphChange.EdgeChanged}) carries the list's version
 * after it. The window at version <i>v</i> ignores a change it already reflects (≤ <i>v</i>),
 * applies change <i>v + 1</i> — the edge leaves its old place, an active edge takes its new one
 * if that lies inside the window, the count moves — and cannot say anything after a gap (a
 * change not heard of, or heard out of order): then the window is dropped and read again. So a
 * window updated in place is always what MySQL held at its version, the rule TAO follows when it
 * updates an association list on write rather than dropping it.
 *
 * <h2>Sized by its readers</h2>
 * A window starts at the configured depth ({@code cache.edgeWindow}). A page it cannot answer
 * because the page lies deeper ({@link #depthToAnswer}) has the window read again deeper — at
 * least twice as deep, at most {@link #MAX_DEPTH}, the API's page cap — so a list that readers
 * page far into is kept as far as they read it, and the others stay small. The weight bound
 * covers the deeper windows like the rest.
 *
 * <p>Its version is how many committed changes the list had when this window was true; its
 * depth how many edges it was read to hold, its capacity as changes come.
 */
public final class EdgeWindow {
  /** The deepest a window is read: the API's page cap. */
  public static final int MAX_DEPTH = EdgeQuery.MAX_LIMIT;

  private final List<Edge> edges;
  private final long count;
  private final long version;
  private final int depth;
  /**
   * The last page answered, and the query it answered: a window never changes (a change makes a
   * new one), so the same query gets the same page — the same object, whose rendered bytes the
   * API keeps ({@code RenderedJson}). A benign race, as {@link String#hashCode}'s: two readers
   * may each compute the page, and either keeps it; a {@link Memo} is immutable, so whichever is
   * read is whole.
   */
  private volatile Memo memo;

  private record Memo(EdgeQuery query, EdgePage page) {}

  public EdgeWindow(List<Edge> edges, long count, long version, int depth) {
    this.edges = List.copyOf(edges);
    this.count = count;
    this.version = version;
    this.depth = depth;
  }

  /** The newest edges held, newest first. */
  public List<Edge> edges() {
    return edges;
  }

  /** The list's count of active edges at {@link #version}. */
  public long count() {
    return count;
  }

  public long version() {
    return version;
  }

  public int depth() {
    return depth;
  }

  /** Equal when their edges, count, version and depth are: the page kept is not part of a window's value. */
  @Override
  public boolean equals(Object other) {
    return other instanceof EdgeWindow window && count == window.count && version == window.version
        && depth == window.depth && edges.equals(window.edges);
  }

  @Override
  public int hashCode() {
    return java.util.Objects.hash(edges, count, version, depth);
  }

  @Override
  public String toString() {
    return "EdgeWindow[" + edges.size() + " edges, count " + count + ", version " + version + ", depth " + depth + "]";
  }

  /** A window as deep as it holds edges (for tests). */
  public EdgeWindow(List<Edge> edges, long count, long version) {
    this(edges, count, version, Math.max(1, edges.size()));
  }

  /** What a store read of the list's head to {@code depth} edges gave. */
  public static EdgeWindow of(EdgeListHead head, int depth) {
    return new EdgeWindow(head.edges(), head.count(), head.version(), depth);
  }

  /**
   * How deep a window must be read to answer {@code query}, which this one could not answer
   * ({@link #page} was empty); 0 when no window up to {@link #MAX_DEPTH} could. At least twice
   * this window's depth, so a reader paging down a list rereads it a few times, not every page.
   */
  public int depthToAnswer(EdgeQuery query) {
    if (complete()) {
      return 0;
    }
    long needed;
    if (query.order() == Order.ASC) {
      // Oldest first needs the whole list.
      needed = count + 1;
    } else if (query.minSequence() != null || query.maxSequence() != null) {
      needed = (long) depth * 2;
    } else if (query.after() == null) {
      needed = (long) query.offset() + query.limit() + 1;
    } else {
      int position = positionAfter(query.after());
      needed = position < 0 ? (long) depth * 2 : (long) position + query.offset() + query.limit() + 1;
    }
    if (needed > MAX_DEPTH) {
      return 0;
    }
    return (int) Math.min(MAX_DEPTH, Math.max(needed, (long) depth * 2));
  }

  /** The index of the first edge past {@code cursor} (newest first), or -1 when every edge held comes before it. */
  private int positionAfter(Cursor cursor) {
    for (int i = 0; i < edges.size(); i++) {
      if (compare(edges.get(i), cursor) < 0) {
        return i;
      }
    }
    return -1;
  }

  /** Whether the window holds the whole list: as many edges as the list's count. */
  public boolean complete() {
    return edges.size() == count;
  }

  /**
   * This window after {@code change}, holding at most {@code capacity} edges; empty when the
   * change cannot be applied (a gap in the versions, or a whole window whose count would no
   * longer match its edges) or the window has shrunk under half its capacity without being the
   * whole list (it would answer little; better read it again).
   */
  public Optional<EdgeWindow> after(GraphChange.EdgeChanged change, int capacity) {
    if (change.listVersion() <= version) {
      return Optional.of(this);
    }
    if (change.listVersion() != version + 1) {
      return Optional.empty();
    }
    List<Edge> next = new ArrayList<>(edges.size() + 1);
    for (Edge edge : edges) {
      if (!edge.to().equals(change.to())) {
        next.add(edge);
      }
    }
    Edge written = change.edge();
    if (written != null && written.state() == EdgeState.ACTIVE) {
      int at = rankOf(next, written);
      if (complete() || at < next.size()) {
        next.add(at, written);
      }
    }
    long nextCount = count + change.countDelta();
    if (complete() && next.size() != nextCount) {
      return Optional.empty();
    }
    EdgeWindow after = new EdgeWindow(next.size() > capacity ? next.subList(0, capacity) : next, nextCount,
        change.listVersion());
    return after.complete() || after.edges().size() >= capacity / 2 ? Optional.of(after) : Optional.empty();
  }

  /** The edge from {@code to}, if the window holds it. */
  public Optional<Edge> edgeTo(NodeId to) {
    for (Edge edge : edges) {
      if (edge.to().equals(to)) {
        return Optional.of(edge);
      }
    }
    return Optional.empty();
  }

  /**
   * The edges to {@code targets} in the window's order, if the window holds an edge to every one of
   * them; empty otherwise (one it does not hold may be older, or absent, or not a valid target —
   * MySQL, and the checks in front of it, say which), and empty for no targets, which only the
   * store's checks may answer.
   */
  public Optional<List<Edge>> edgesTo(Collection<NodeId> targets) {
    Set<NodeId> wanted = new HashSet<>(targets);
    if (wanted.isEmpty()) {
      return Optional.empty();
    }
    List<Edge> found = new ArrayList<>(wanted.size());
    for (Edge edge : edges) {
      if (wanted.contains(edge.to())) {
        found.add(edge);
      }
    }
    return found.size() == wanted.size() ? Optional.of(found) : Optional.empty();
  }

  /**
   * When the window is the whole list: at most {@code limit} of its targets above {@code after}
   * (null from the start) in ascending ID order, as {@code getTargets} answers them. Empty when
   * the window is not the whole list.
   */
  public Optional<List<NodeId>> targetsAfter(NodeId after, int limit) {
    if (!complete()) {
      return Optional.empty();
    }
    return Optional.of(edges.stream()
        .map(Edge::to)
        .filter(to -> after == null || to.value() > after.value())
        .sorted(java.util.Comparator.comparingLong(NodeId::value))
        .limit(limit)
        .toList());
  }

  /** Where {@code edge} goes among {@code newestFirst}: before the first edge it outranks. */
  private static int rankOf(List<Edge> newestFirst, Edge edge) {
    for (int i = 0; i < newestFirst.size(); i++) {
      if (Edge.NEWEST_FIRST.compare(edge, newestFirst.get(i)) < 0) {
        return i;
      }
    }
    return newestFirst.size();
  }

  /**
   * The page the query asks for, if the window can answer it exactly. A complete window answers
   * anything. Otherwise only newest-first pages can come from it, and only when the window holds
   * one edge more than the page past its start (to know whether another page follows): every edge
   * outside the window ranks below every edge in it.
   */
  public Optional<EdgePage> page(EdgeQuery query) {
    Memo last = memo;
    if (last != null && last.query().equals(query)) {
      return Optional.of(last.page());
    }
    Optional<EdgePage> page = compute(query);
    page.ifPresent(answered -> memo = new Memo(query, answered));
    return page;
  }

  private Optional<EdgePage> compute(EdgeQuery query) {
    boolean complete = complete();
    if (!complete && query.order() == Order.ASC) {
      return Optional.empty();
    }
    List<Edge> ordered = edges;
    if (query.order() == Order.ASC) {
      ordered = new ArrayList<>(edges);
      Collections.reverse(ordered);
    }
    List<Edge> taken = new ArrayList<>(query.limit() + 1);
    int skipped = 0;
    for (Edge edge : ordered) {
      if (!withinBounds(edge, query) || !beyondCursor(edge, query)) {
        continue;
      }
      if (skipped < query.offset()) {
        skipped++;
        continue;
      }
      taken.add(edge);
      if (taken.size() == query.limit() + 1) {
        break;
      }
    }
    if (!complete && taken.size() <= query.limit()) {
      return Optional.empty();
    }
    if (taken.size() <= query.limit()) {
      return Optional.of(new EdgePage(taken, null));
    }
    List<Edge> page = taken.subList(0, query.limit());
    Edge last = page.get(page.size() - 1);
    return Optional.of(new EdgePage(page, new Cursor(last.sequence(), last.to().value())));
  }

  public int weight() {
    int weight = 64;
    for (Edge edge : edges) {
      weight += 96 + edge.data().size() * 48;
    }
    return weight;
  }

  private static boolean withinBounds(Edge edge, EdgeQuery query) {
    return (query.minSequence() == null || edge.sequence() >= query.minSequence())
        && (query.maxSequence() == null || edge.sequence() <= query.maxSequence());
  }

  private static boolean beyondCursor(Edge edge, EdgeQuery query) {
    Cursor after = query.after();
    if (after == null) {
      return true;
    }
    int compared = compare(edge, after);
    return query.order() == Order.DESC ? compared < 0 : compared > 0;
  }

  /** Where {@code edge} stands against {@code cursor} in the list's (sequence, to) order: below is negative. */
  private static int compare(Edge edge, Cursor cursor) {
    return edge.sequence() != cursor.sequence() ? Long.compare(edge.sequence(), cursor.sequence())
        : Long.compare(edge.to().value(), cursor.to());
  }
}
