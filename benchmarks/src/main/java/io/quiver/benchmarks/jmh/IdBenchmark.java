package io.quiver.benchmarks.jmh;

import io.quiver.store.NodeId;
import java.util.SplittableRandom;
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
import org.openjdk.jmh.annotations.Warmup;

/**
 * Encoding and decoding 64-bit IDs. Inputs are precomputed; each call takes the next.
 *
 * <p>{@code ./bench jmh IdBenchmark}
 */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class IdBenchmark {
  private static final int SIZE = 1 << 12;
  private final int[] shards = new int[SIZE];
  private final int[] types = new int[SIZE];
  private final long[] locals = new long[SIZE];
  private final NodeId[] ids = new NodeId[SIZE];
  private final String[] texts = new String[SIZE];
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(7);
    for (int i = 0; i < SIZE; i++) {
      shards[i] = random.nextInt(NodeId.MAX_SHARD + 1);
      types[i] = random.nextInt(NodeId.MAX_TYPE + 1);
      locals[i] = random.nextLong(NodeId.MAX_LOCAL + 1);
      ids[i] = NodeId.of(shards[i], types[i], locals[i]);
      texts[i] = ids[i].toString();
    }
  }

  private int index() {
    return next = (next + 1) & (SIZE - 1);
  }

  @Benchmark
  public NodeId encode() {
    int i = index();
    return NodeId.of(shards[i], types[i], locals[i]);
  }

  @Benchmark
  public long decode() {
    NodeId id = ids[index()];
    return id.shard() + id.type() + id.local();
  }

  @Benchmark
  public NodeId parseFromJson() {
    return NodeId.parse(texts[index()]).orElseThrow();
  }
}
