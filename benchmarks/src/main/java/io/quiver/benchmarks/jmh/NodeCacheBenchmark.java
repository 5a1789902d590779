package io.quiver.benchmarks.jmh;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.github.benmanes.caffeine.cache.Ticker;
import io.quiver.cache.internal.GuardedCache;
import io.quiver.store.Node;
import io.quiver.store.NodeId;
import java.time.Duration;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Threads;
import org.openjdk.jmh.annotations.Warmup;

/**
 * The node cache's hit path and its version-guarded write, with the cache's own rules
 * ({@link GuardedCache}, the cache module's internal rule, measured directly); keys precomputed,
 * 2^16 nodes resident. {@code ./bench jmh NodeCacheBenchmark}
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.Throughput)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
@Threads(2)
public class NodeCacheBenchmark {
  private static final int SIZE = 1 << 16;
  private GuardedCache<NodeId, Node> cache;
  private NodeId[] keys;
  private Node[] nodes;

  @State(Scope.Thread)
  public static class Position {
    int next;
  }

  @Setup
  public void setUp() throws Exception {
    cache = new GuardedCache<>(256L << 20, node -> 512, (a, b) -> a.version() > b.version(),
        Duration.ofMinutes(5), Duration.ofSeconds(2), Duration.ofSeconds(10), Ticker.systemTicker());
    ObjectNode data = (ObjectNode) new ObjectMapper().readTree("{\"name\": \"someone\", \"bio\": \"\"}");
    keys = new NodeId[SIZE];
    nodes = new Node[SIZE];
    for (int i = 0; i < SIZE; i++) {
      keys[i] = NodeId.of(i % 4096, 1, i);
      nodes[i] = new Node(keys[i], "user", data, 1, Instant.EPOCH, Instant.EPOCH);
      cache.write(keys[i], nodes[i]);
    }
  }

  @Benchmark
  public Object get(Position position) {
    return cache.lookup(keys[position.next = (position.next + 1) & (SIZE - 1)]);
  }

  @Benchmark
  public void put(Position position) {
    int i = position.next = (position.next + 1) & (SIZE - 1);
    cache.write(keys[i], nodes[i]);
  }
}
