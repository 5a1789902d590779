package io.quiver.benchmarks.workload;

import java.util.SplittableRandom;

/** One concrete operation: what to call, on which nodes. */
record Call(Operation operation, long from, long to, long sequence, String text) {

  static Call next(Operation operation, Graph graph, SplittableRandom random) {
    long from = operation.write() ? graph.writeNode(random) : graph.readNode(random);
    long to = switch (operation) {
      case ADD_EDGE -> graph.writeNode(random);
      case UPDATE_EDGE, REMOVE_EDGE, GET_EDGE -> graph.knownTarget(from, random);
      default -> 0;
    };
    if (operation == Operation.DELETE_NODE) {
      Long created = graph.takeCreated();
      if (created == null) {
        return new Call(Operation.ADD_NODE, 0, 0, 0, "n" + random.nextInt(1000));
      }
      from = created;
    }
    return new Call(operation, from, to, random.nextLong(1L << 40), "v" + random.nextInt(1_000_000));
  }
}
