package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The end-to-end benchmark, tiny: it runs, measures all four targets, agrees with the servers'
 * own counts, and writes its report. It claims no speed: figures come only from {@code ./bench}.
 */
class WorkloadSmokeTest {

  @Test
  void aTinyRun_measuresAllFourTargets_countsAgreeWithTheServers_andWritesItsReport() throws Exception {
    Path output = Path.of("target", "workload-smoke.json");
    WorkloadOptions options = new WorkloadOptions(150, Duration.ofSeconds(1), Duration.ofSeconds(2), List.of(4), null,
        output);

    Report report = Workload.run(options);

    assertThat(report.results()).extracting(Report.Measured::target)
        .containsExactly("quiver", "quiver-nocache", "jdbc", "bare-vertx");
    assertThat(report.results()).allSatisfy(run -> assertThat(run.opsPerSecond()).isPositive());
    assertThat(report.notes()).filteredOn(note -> note.contains("counts")).hasSize(2)
        .allSatisfy(note -> assertThat(note).contains("equal the server's /metrics"));
    JsonNode written = new ObjectMapper().readTree(output.toFile());
    assertThat(written.get("runs")).hasSize(4);
    assertThat(report.table()).contains("ops/s ÷ quiver").contains("p99 ÷ quiver");
  }
}
