package io.quiver.node;

import io.quiver.id.NodeId;
import java.util.List;

/** The answer to a multi-get: the nodes found and the IDs not found, each in request order. */
public record NodeBatch(List<Node> nodes, List<NodeId> missing) {
  public NodeBatch {
    nodes = List.copyOf(nodes);
    missing = List.copyOf(missing);
  }
}
