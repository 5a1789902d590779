package io.quiver.store;

import java.util.Objects;

/** One list of edges: those of {@code type} from {@code from}, kept on the FROM node's shard. */
public record EdgeListId(NodeId from, String type) {
  public EdgeListId {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(type, "type");
  }
}
