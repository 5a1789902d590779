package io.quiver.benchmarks.workload;

/** The operations a {@link Mix} draws from, each with the API operation it becomes. */
enum Operation {
  GET_EDGES("getEdges"),
  GET_NODE("getNode"),
  ADD_EDGE("addEdge"),
  UPDATE_EDGE("addEdge"),
  UPDATE_NODE("updateNode"),
  COUNT_EDGES("countEdges"),
  REMOVE_EDGE("removeEdge"),
  ADD_NODE("createNode"),
  DELETE_NODE("deleteNode"),
  GET_EDGE("getEdge"),
  /** A single edge whose target is as likely not to be linked as to be: TAO's assoc_get, often a "no". */
  POINT_READ("getEdge"),
  /** {@link Call#BATCH} edges from as many sources to one target ("does each of my friends like this?"). */
  BATCH_READ("batchGetEdges");

  /** The operation name the server's request metrics use. */
  final String apiOperation;

  Operation(String apiOperation) {
    this.apiOperation = apiOperation;
  }

  boolean write() {
    return switch (this) {
      case ADD_EDGE, UPDATE_EDGE, UPDATE_NODE, REMOVE_EDGE, ADD_NODE, DELETE_NODE -> true;
      default -> false;
    };
  }
}
