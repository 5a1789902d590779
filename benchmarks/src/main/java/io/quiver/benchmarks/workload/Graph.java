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

  void created(long id) {
    created.add(id);
  }

  /** A node created during the run, to delete; null when there is none left. */
  Long takeCreated() {
    return created.pollFirst();
  }
}
