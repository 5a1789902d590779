package io.quiver.benchmarks.workload;

import java.util.List;

import java.util.SplittableRandom;

/**
 * One concrete operation: what to call, on which nodes.
 *
 * @param sources a batch read's source nodes (each to {@code to}); empty for every other operation
 */
record Call(Operation operation, long from, long to, long sequence, String text, List<Long> sources) {
  /** The edges one batch read asks for. */
  static final int BATCH = 10;

  Call(Operation operation, long from, long to, long sequence, String text) {
    this(operation, from, to, sequence, text, List.of());
  }

  static Call next(Operation operation, Graph graph, SplittableRandom random) {
    long from = operation.write() ? graph.writeNode(random) : graph.readNode(random);
    long to = switch (operation) {
      case ADD_EDGE -> graph.writeNode(random);
      case UPDATE_EDGE, REMOVE_EDGE, GET_EDGE -> graph.knownTarget(from, random);
      case POINT_READ -> random.nextBoolean() ? graph.knownTarget(from, random) : graph.readNode(random);
      case BATCH_READ -> graph.readNode(random);
      default -> 0;
    };
    if (operation == Operation.BATCH_READ) {
      // The asking node's known targets ask about one node: which of them link to it?
      return new Call(operation, from, to, 0, null, graph.knownTargets(from, BATCH, random));
    }
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
