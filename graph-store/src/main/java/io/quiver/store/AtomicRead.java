package io.quiver.store;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * The answer of a read-atomic multi-read ({@link GraphStore#readAtomically}): nodes and edge lists
 * that never show part of one write — an edge's forward copy without its inverse or the reverse,
 * a list without its count — and each node whole.
 *
 * @param nodes the nodes asked for, in request order; null for one that does not exist
 * @param lists the lists asked for, in request order: each one's newest edges, count and version,
 *     read together
 * @param rounds how many rounds of reads it took: 1, or more when the first showed a write
 *     half-done (its inverse was applied, and everything read again)
 */
public record AtomicRead(List<Node> nodes, List<EdgeListHead> lists, int rounds) {
  public AtomicRead {
    nodes = Collections.unmodifiableList(new ArrayList<>(nodes));
    lists = List.copyOf(lists);
  }

  /** One list a multi-read asks for: its newest {@code limit} edges, with its count and version. */
  public record ListRead(NodeId from, String type, int limit) {}

  /** The most items one multi-read takes, nodes and lists together. */
  public static final int MAX_ITEMS = 200;
  /** The most edges one list of a multi-read answers. */
  public static final int MAX_LIST_LIMIT = 100;
  /** The most rounds a multi-read takes before it answers UNAVAILABLE (writes racing it without end). */
  public static final int MAX_ROUNDS = 5;
}
