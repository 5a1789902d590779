package io.quiver.benchmarks.jmh;

import io.quiver.store.Cursor;
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

/** Paging cursors to and from their opaque text. {@code ./bench jmh CursorBenchmark} */
@State(Scope.Thread)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.NANOSECONDS)
@Warmup(iterations = 2, time = 1)
@Measurement(iterations = 3, time = 1)
@Fork(1)
public class CursorBenchmark {
  private static final int SIZE = 1 << 10;
  private final Cursor[] cursors = new Cursor[SIZE];
  private final String[] encoded = new String[SIZE];
  private int next;

  @Setup
  public void setUp() {
    SplittableRandom random = new SplittableRandom(3);
    for (int i = 0; i < SIZE; i++) {
      cursors[i] = new Cursor(random.nextLong(), random.nextLong(1L << 62));
      encoded[i] = cursors[i].encode();
    }
  }

  @Benchmark
  public String encode() {
    return cursors[next = (next + 1) & (SIZE - 1)].encode();
  }

  @Benchmark
  public Cursor decode() {
    return Cursor.decode(encoded[next = (next + 1) & (SIZE - 1)]).orElseThrow();
  }
}
