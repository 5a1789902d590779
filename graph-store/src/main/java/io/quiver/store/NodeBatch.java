package io.quiver.store;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/** The answer to a multi-get: the nodes found and the IDs not found, each in request order. */
public record NodeBatch(List<Node> nodes, List<NodeId> missing) {
  public NodeBatch {
    nodes = List.copyOf(nodes);
    missing = List.copyOf(missing);
  }

  /** The answer to a request for {@code ids}, from the nodes found among them, in request order. */
  public static NodeBatch of(List<NodeId> ids, Map<NodeId, Node> found) {
    List<Node> nodes = new ArrayList<>();
    List<NodeId> missing = new ArrayList<>();
    for (NodeId id : ids) {
      Node node = found.get(id);
      if (node != null) {
        nodes.add(node);
      } else {
        missing.add(id);
      }
    }
    return new NodeBatch(nodes, missing);
  }
}
