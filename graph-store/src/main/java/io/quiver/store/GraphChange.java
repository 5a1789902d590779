package io.quiver.store;

import java.util.Objects;

/**
 * A committed change to the graph, as the {@link ChangeFeed} announces it: whoever made it (a
 * client's write, the inverse applier, a cascade, a repair), after its transaction committed.
 */
public sealed interface GraphChange {

  /**
   * A node was created, updated, replaced or deleted.
   *
   * @param node the node as written, with its type's defaults; null when it was deleted
   */
  record NodeChanged(NodeId id, Node node) implements GraphChange {
    public NodeChanged {
      Objects.requireNonNull(id, "id");
    }

    public boolean deleted() {
      return node == null;
    }
  }

  /** The list of {@code edgeType} edges from {@code from} changed: an edge added, updated or removed. */
  record EdgeListChanged(NodeId from, String edgeType) implements GraphChange {
    public EdgeListChanged {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(edgeType, "edgeType");
    }
  }
}
