package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** Several runs of a target are reported as their median, with the spread, in a fixed column order. */
class ReportTest {

  /** A run of {@code operations} operations of {@code micros} each, over one second. */
  private static Report.Measured run(String target, int round, int operations, long micros, Double sustained) {
    Recording recording = new Recording();
    for (int i = 0; i < operations; i++) {
      recording.record(Operation.GET_NODE, micros, null);
    }
    return new Report.Measured(target, 16, round, 1.0, recording, sustained);
  }

  @Test
  void threeRuns_reportTheMedianRateItsRunsLatencies_theSpread_andTheSustainedMedian() {
    Report report = new Report(null);
    report.add(run("quiver-nocache", 1, 500, 4000, 480.0));
    report.add(run("quiver", 1, 900, 2000, 850.0));
    report.add(run("quiver", 2, 1100, 1000, 1000.0));
    report.add(run("quiver-nocache", 2, 400, 5000, 390.0));
    report.add(run("quiver", 3, 1000, 3000, 990.0));
    report.add(run("quiver-nocache", 3, 600, 6000, 590.0));

    String table = report.table();

    assertThat(table).contains("medians of 3 runs in shuffled orders");
    assertThat(table).contains("| | quiver | quiver-nocache | ");
    assertThat(table).contains("| ops/s | 1000 | 500 | ");
    assertThat(table).contains("| spread | 900–1100 | 400–600 | ");
    assertThat(table).contains("| ops/s ÷ quiver | 1.00 | 0.50 | ");
    assertThat(table).contains("| sustained ops/s | 990 | 480 | ");
    assertThat(table).as("the latencies of the median run: quiver's third, nocache's first")
        .contains("| p50 | 3.00 | 4.00 | ");
    assertThat(table).contains("quiver, 16 callers, per operation (the median run, 3)");
  }

  @Test
  void aStallShorterThanAThousandthOfTheCalls_showsAsTheLongestCallOfItsRun() {
    Report report = new Report(null);
    report.add(run("jdbc-http", 2, 1000, 2000, null));
    Report.Measured stalled = run("jdbc-http", 1, 5000, 2000, null);
    stalled.recording().record(Operation.GET_NODE, 3_000_000, null);
    report.add(stalled);
    report.add(run("jdbc-http", 3, 1000, 2000, null));

    String table = report.table();

    assertThat(table).contains("| p99.9 | 2.00 | ");
    assertThat(table).as("in run order").contains("| longest call ms, run by run | 3000, 2, 2 | ");
  }

  @Test
  void oneRun_hasNoSpreadRow() {
    Report report = new Report(null);
    report.add(run("quiver", 1, 100, 1000, null));
    assertThat(report.table()).doesNotContain("spread").doesNotContain("medians of");
  }
}
