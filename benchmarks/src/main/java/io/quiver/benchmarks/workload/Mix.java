package io.quiver.benchmarks.workload;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.SplittableRandom;

/**
 * Which operations a run sends, in what shares.
 *
 * <ul>
 *   <li>{@link #LINKBENCH}: LinkBench's mix (Armstrong et al., SIGMOD 2013), about 30 % writes.</li>
 *   <li>{@link #TAO}: TAO's production read mix (Bronson et al., ATC 2013, table 1): assoc_range
 *       40.9 %, obj_get 28.9 %, assoc_get 15.7 %, assoc_count 11.7 %, assoc_time_range 2.8 %
 *       (a range read here too), writes 0.2 %.</li>
 *   <li>{@link #POINTS}: TAO's reads in the shape TAOBench (Cheng et al., VLDB 2022) publishes
 *       them, edge reads mostly single edges with no list read first: point reads 45 % (half of
 *       them of an edge that does not exist), object reads 35 %, ranges 10 %, counts 9.8 %,
 *       writes 0.2 %.</li>
 *   <li>{@link #POINTS_BATCH}: the same with each point read replaced by a batch of
 *       {@value Call#BATCH} single edges from as many sources to one target.</li>
 *   <li>{@link #WRITES}: edge writes only — adds, updates, removes — where sustained throughput
 *       includes draining the inverse edges.</li>
 * </ul>
 */
enum Mix {
  LINKBENCH(Map.of(Operation.GET_EDGES, 50.7, Operation.GET_NODE, 12.9, Operation.ADD_EDGE, 9.0,
      Operation.UPDATE_EDGE, 8.0, Operation.UPDATE_NODE, 7.4, Operation.COUNT_EDGES, 4.9, Operation.REMOVE_EDGE, 3.0,
      Operation.ADD_NODE, 2.6, Operation.DELETE_NODE, 1.0, Operation.GET_EDGE, 0.5)),
  TAO(Map.of(Operation.GET_EDGES, 43.7, Operation.GET_NODE, 28.9, Operation.GET_EDGE, 15.7,
      Operation.COUNT_EDGES, 11.7, Operation.ADD_EDGE, 0.1, Operation.UPDATE_NODE, 0.1)),
  POINTS(Map.of(Operation.POINT_READ, 45.0, Operation.GET_NODE, 35.0, Operation.GET_EDGES, 10.0,
      Operation.COUNT_EDGES, 9.8, Operation.ADD_EDGE, 0.1, Operation.UPDATE_NODE, 0.1)),
  POINTS_BATCH(Map.of(Operation.BATCH_READ, 45.0, Operation.GET_NODE, 35.0, Operation.GET_EDGES, 10.0,
      Operation.COUNT_EDGES, 9.8, Operation.ADD_EDGE, 0.1, Operation.UPDATE_NODE, 0.1)),
  WRITES(Map.of(Operation.ADD_EDGE, 60.0, Operation.UPDATE_EDGE, 20.0, Operation.REMOVE_EDGE, 20.0));

  private final double[] cumulative = new double[Operation.values().length];

  Mix(Map<Operation, Double> shares) {
    Map<Operation, Double> all = new EnumMap<>(shares);
    double sum = 0;
    for (Operation operation : Operation.values()) {
      sum += all.getOrDefault(operation, 0.0);
      cumulative[operation.ordinal()] = sum;
    }
  }

  /** The next operation, drawn by the shares. */
  Operation pick(SplittableRandom random) {
    double at = random.nextDouble() * cumulative[cumulative.length - 1];
    for (int i = 0; i < cumulative.length; i++) {
      if (at < cumulative[i]) {
        return Operation.values()[i];
      }
    }
    return Operation.GET_EDGES;
  }

  String label() {
    return name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  static Mix of(String name) {
    for (Mix mix : values()) {
      if (mix.label().equals(name)) {
        return mix;
      }
    }
    throw new IllegalArgumentException("unknown mix " + name + "; the mixes are linkbench, tao, points, points-batch, writes");
  }
}
