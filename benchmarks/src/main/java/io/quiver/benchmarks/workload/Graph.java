package io.quiver.benchmarks.workload;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentLinkedDeque;

/**
 * The loaded graph as the driver knows it: node IDs by popularity rank, some known edges per node
 * (for updates and removals), and the nodes created during a run (the only ones it deletes, so
 * the loaded graph keeps its shape).
 */
final class Graph {
  /** The Zipf shape of the nodes reads pick. */
  static final double READ_SHAPE = 0.8;
  /** The Zipf shape of the nodes writes pick (LinkBench's: writes are a little less skewed). */
  static final double WRITE_SHAPE = 0.74;

  final List<Long> nodes;
  private final Map<Long, List<Long>> knownEdges = new ConcurrentHashMap<>();
  private final ConcurrentLinkedDeque<Long> created = new ConcurrentLinkedDeque<>();
  private final Zipf reads;
  private final Zipf writes;

  Graph(List<Long> nodes, double readShape, double writeShape) {
    this.nodes = List.copyOf(nodes);
    this.reads = new Zipf(nodes.size(), readShape);
    this.writes = new Zipf(nodes.size(), writeShape);
  }

  /** Each node's known targets, as they are now: what a generator in another process starts from. */
  Map<Long, List<Long>> knownEdges() {
    Map<Long, List<Long>> copy = new java.util.HashMap<>();
    knownEdges.forEach((from, targets) -> {
      synchronized (targets) {
        copy.put(from, List.copyOf(targets));
      }
    });
    return copy;
  }

  /** Adds known edges (a generator's starting point). */
  void knowEdges(Map<Long, List<Long>> edges) {
    edges.forEach((from, targets) -> targets.forEach(to -> edge(from, to)));
  }

  long readNode(SplittableRandom random) {
    return nodes.get(reads.next(random));
  }

  long writeNode(SplittableRandom random) {
    return nodes.get(writes.next(random));
  }

  void edge(long from, long to) {
    knownEdges.computeIfAbsent(from, k -> new ArrayList<>());
    List<Long> targets = knownEdges.get(from);
    synchronized (targets) {
      if (targets.size() < 64) {
        targets.add(to);
      }
    }
  }

  /** A target this node is known to have had an edge to, or any popular node. */
  long knownTarget(long from, SplittableRandom random) {
    List<Long> targets = knownEdges.get(from);
    if (targets != null) {
      synchronized (targets) {
        if (!targets.isEmpty()) {
          return targets.get(random.nextInt(targets.size()));
        }
      }
    }
    return readNode(random);
  }

  /** {@code count} distinct nodes: {@code from}'s known targets first, then nodes reads pick. */
  List<Long> knownTargets(long from, int count, SplittableRandom random) {
    java.util.LinkedHashSet<Long> picked = new java.util.LinkedHashSet<>();
    List<Long> targets = knownEdges.get(from);
    if (targets != null) {
      synchronized (targets) {
        for (int i = 0; i < targets.size() && picked.size() < count; i++) {
          picked.add(targets.get(i));
        }
      }
    }
    for (int tries = 0; picked.size() < count && tries < count * 4; tries++) {
      picked.add(readNode(random));
    }
    return List.copyOf(picked);
  }

  void created(long id) {
    created.add(id);
  }

  /** A node created during the run, to delete; null when there is none left. */
  Long takeCreated() {
    return created.pollFirst();
  }
}
