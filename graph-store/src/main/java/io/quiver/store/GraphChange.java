package io.quiver.store;

import java.util.Objects;

/**
 * A committed change to the graph, as the {@link ChangeFeed} announces it: whoever made it (a
 * client's write, the inverse applier, a cascade, a repair), after its transaction committed.
 */
public sealed interface GraphChange {

  /** A change to the node {@code id}: described ({@link NodeChanged}), or not ({@link NodeInvalidated}). */
  sealed interface NodeChange extends GraphChange {
    NodeId id();
  }

  /**
   * A node was created, updated, replaced or deleted.
   *
   * @param node the node as written, with its type's defaults; null when it was deleted
   */
  record NodeChanged(NodeId id, Node node) implements NodeChange {
    public NodeChanged {
      Objects.requireNonNull(id, "id");
    }

    public boolean deleted() {
      return node == null;
    }
  }

  /**
   * The node {@code id} changed in a way not described further: what another server tells (its
   * invalidations carry the ID alone). Whatever is held of the node is stale; it may or may not
   * still exist.
   */
  record NodeInvalidated(NodeId id) implements NodeChange {
    public NodeInvalidated {
      Objects.requireNonNull(id, "id");
    }
  }

  /** A change to the list of {@code edgeType} edges from {@code from}: one edge, or not said. */
  sealed interface ListChange extends GraphChange {
    NodeId from();

    String edgeType();

    default EdgeListId list() {
      return new EdgeListId(from(), edgeType());
    }
  }

  /**
   * One edge of a list was written: added, updated or removed, by a client or by the inverse
   * applier. Changes to one list are numbered in commit order ({@code listVersion}), so a reader
   * holding the list at version <i>v</i> applies <i>v + 1</i> in place and knows a gap.
   *
   * @param edge the edge as written, with its type's defaults — active, or archived (out of the
   *     list, still read singly); null when the write removed it (or left a tombstone over nothing)
   * @param listVersion the list's version after this change
   * @param countDelta what this change did to the list's count: +1, −1 or 0
   */
  record EdgeChanged(NodeId from, String edgeType, NodeId to, Edge edge, long listVersion, int countDelta)
      implements ListChange {
    public EdgeChanged {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(edgeType, "edgeType");
      Objects.requireNonNull(to, "to");
    }
  }

  /**
   * The list of {@code edgeType} edges from {@code from} changed in a way not described further:
   * what another server tells, or a change made without its list's version. Whatever is held of
   * the list is stale.
   */
  record EdgeListChanged(NodeId from, String edgeType) implements ListChange {
    public EdgeListChanged {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(edgeType, "edgeType");
    }
  }
}
