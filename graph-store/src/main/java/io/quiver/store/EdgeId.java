package io.quiver.store;

import java.util.Objects;

/** One edge, by its list and its target: TAO's (id1, atype, id2). */
public record EdgeId(NodeId from, String type, NodeId to) {
  public EdgeId {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(type, "type");
    Objects.requireNonNull(to, "to");
  }

  /** The list this edge belongs to. */
  public EdgeListId list() {
    return new EdgeListId(from, type);
  }
}
