package io.quiver.benchmarks.fleet;

import io.quiver.benchmarks.writes.WriteRounds;
import java.util.List;
import java.util.function.UnaryOperator;

/**
 * {@code ./bench replication [--seconds S] [--writers N] [--rounds R]}: what semi-synchronous
 * replication costs a write. The dev stack with no replica and with one replica per host (seeded,
 * confirming every write before it is acknowledged), in alternating rounds ({@link WriteRounds}).
 * The replicas' MariaDB processes take CPU from the primaries on a 2-core machine.
 */
public final class ReplicationBenchmark {
  private ReplicationBenchmark() {}

  public static void main(String[] args) throws Exception {
    WriteRounds.Options options = WriteRounds.Options.parse(args,
        "./bench replication [--seconds S] [--writers N] [--rounds R]");
    WriteRounds.run(options, List.of(
        new WriteRounds.Variant("no replica", 0, UnaryOperator.identity(), null),
        new WriteRounds.Variant("one replica per host", 1, UnaryOperator.identity(), null)), "replication-data");
  }
}
