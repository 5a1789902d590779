package io.quiver.benchmarks.workload;

/** The LinkBench operation mix, with each operation's share and the API operation it becomes. */
enum Operation {
  GET_EDGES(50.7, "getEdges"),
  GET_NODE(12.9, "getNode"),
  ADD_EDGE(9.0, "addEdge"),
  UPDATE_EDGE(8.0, "addEdge"),
  UPDATE_NODE(7.4, "updateNode"),
  COUNT_EDGES(4.9, "countEdges"),
  REMOVE_EDGE(3.0, "removeEdge"),
  ADD_NODE(2.6, "createNode"),
  DELETE_NODE(1.0, "deleteNode"),
  GET_EDGE(0.5, "getEdge");

  final double percent;
  /** The operation name the server's request metrics use. */
  final String apiOperation;

  Operation(double percent, String apiOperation) {
    this.percent = percent;
    this.apiOperation = apiOperation;
  }

  boolean write() {
    return switch (this) {
      case ADD_EDGE, UPDATE_EDGE, UPDATE_NODE, REMOVE_EDGE, ADD_NODE, DELETE_NODE -> true;
      default -> false;
    };
  }
}
