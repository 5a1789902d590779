package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The end-to-end benchmark, tiny: it runs, drives all six targets — each server in a JVM of its own,
 * on its own copy of the data where it caches — from a load generator in a JVM of its own, agrees
 * with the servers' own counts, and writes its report. It claims no speed: figures come only from
 * {@code ./bench}.
 */
class WorkloadSmokeTest {

  @Test
  void aTinyRun_measuresAllSixTargets_eachServerInItsOwnJvm_countsAgreeWithTheServers_andWritesItsReport()
      throws Exception {
    Path output = Path.of("target", "workload-smoke.json");
    WorkloadOptions options = new WorkloadOptions(150, Duration.ofSeconds(1), Duration.ofSeconds(2), List.of(4), null,
        Mix.LINKBENCH, output);

    Report report = Workload.run(options);

    assertThat(report.results()).extracting(Report.Measured::target)
        .containsExactly("quiver", "quiver-nocache", "lookaside", "jdbc-http", "jdbc", "bare-vertx");
    assertThat(report.results()).allSatisfy(run -> assertThat(run.opsPerSecond()).isPositive());
    assertThat(report.results()).filteredOn(run -> run.target().startsWith("quiver"))
        .as("the driver's counts per operation equal each Quiver server's own")
        .allSatisfy(run -> assertThat(run.countsAgree()).isTrue());
    assertThat(report.results()).filteredOn(run -> !run.target().startsWith("quiver"))
        .allSatisfy(run -> assertThat(run.countsAgree()).as("%s counts nothing", run.target()).isNull());
    JsonNode written = new ObjectMapper().readTree(output.toFile());
    assertThat(written.get("runs")).hasSize(6);
    Report.Measured quiver = report.results().stream().filter(run -> run.target().equals("quiver")).findFirst()
        .orElseThrow();
    assertThat(quiver.hitRatios()).as("the cached server's hit ratios over the phase")
        .containsKeys("nodes", "edge_windows", "edge_points")
        .allSatisfy((cache, ratio) -> assertThat(ratio).isBetween(0.0, 1.0));
    assertThat(quiver.hitRatios().values()).as("a cache that answered something").anyMatch(ratio -> ratio > 0);
    assertThat(quiver.sustained()).as("the sustained rate, over the phase and the drain").isPositive();
    assertThat(report.results()).filteredOn(run -> run.target().equals("quiver-nocache"))
        .allSatisfy(run -> assertThat(run.hitRatios()).as("no cache, no ratios").isEmpty());
    assertThat(report.results()).filteredOn(run -> run.target().equals("lookaside"))
        .allSatisfy(run -> assertThat(run.hitRatios()).containsOnlyKeys("redis"));
    JsonNode quiverRun = written.get("runs").findParents("target").stream()
        .filter(run -> run.get("target").asText().equals("quiver")).findFirst().orElseThrow();
    assertThat(quiverRun.get("hitRatios").get("nodes").asDouble()).isEqualTo(quiver.hitRatios().get("nodes"));
    assertThat(quiverRun.get("countsAgree").asBoolean()).isTrue();
    assertThat(report.notes()).as("CPU per operation, and how long each warmed up, for every target")
        .filteredOn(note -> note.contains("CPU per")).hasSize(6)
        .allSatisfy(note -> assertThat(note).contains("warmed up"));
    assertThat(report.results()).as("the load generator ran in a JVM of its own, its CPU measured apart")
        .allSatisfy(run -> {
          assertThat(run.cpu().generator()).isPositive();
          assertThat(run.cpu().generatorShare()).isPositive().isLessThanOrEqualTo(1.0);
        });
    assertThat(report.results()).filteredOn(run -> !run.target().equals("jdbc"))
        .allSatisfy(run -> assertThat(run.cpu().servers()).as("each server's own JVM did its serving").isPositive());
    assertThat(report.results()).filteredOn(run -> run.target().equals("jdbc"))
        .allSatisfy(run -> assertThat(run.cpu().servers()).as("jdbc runs in the generator: no server").isZero());
    assertThat(report.notes()).as("the look-aside cache sized as Quiver's")
        .anyMatch(note -> note.startsWith("caches: Quiver's defaults") && note.contains("Redis maxmemory"));
    assertThat(written.get("runs")).allSatisfy(run -> assertThat(run.get("generatorCpuShare").asDouble()).isPositive());
    assertThat(report.notes()).as("the hosts' prepared statements, under a cap raised for the shared hosts")
        .anyMatch(note -> note.startsWith("prepared statements held on the hosts") && note.contains(" of 131,072"));
    assertThat(report.results()).as("what each run cost the disks").allSatisfy(run -> {
      assertThat(run.hosts().pageReads()).isNotNegative();
      assertThat(run.hosts().fsyncs()).isNotNegative();
    });
    assertThat(report.results()).filteredOn(run -> run.target().equals("quiver"))
        .allSatisfy(run -> assertThat(run.hosts().fsyncs()).as("the mix's writes commit durably").isPositive());
    assertThat(report.results()).filteredOn(run -> List.of("quiver-nocache", "jdbc-http", "jdbc").contains(run.target()))
        .allSatisfy(run -> assertThat(run.hosts().statements()).as("an uncached target's statements").isPositive());
    assertThat(written.get("runs")).allSatisfy(run -> assertThat(run.has("innoDbPerOperation")).isTrue());
    assertThat(report.table()).contains("generator's share of the CPU").contains("InnoDB fsyncs /op")
        .contains("MariaDB statements /op");
    assertThat(report.table()).contains("ops/s ÷ quiver").contains("p99 ÷ quiver");
  }

  @Test
  void aRunOfTwoBuilds_measuresOnlyTheTargetsAsked_theOtherBuildsJarBesideThisOne_onDataSetsOfTheirOwn()
      throws Exception {
    // This build's own jar stands in for an earlier one: what is tested is that a jar given is what serves.
    Path jar = Path.of("..", "dev", "target", "quiver.jar").toAbsolutePath().normalize();
    assertThat(jar).as("the dev module's jar, packaged before this module's tests").isRegularFile();
    WorkloadOptions options = WorkloadOptions.parseAll(new String[] {"--quick", "--nodes", "150", "--warmup", "1",
        "--warmup-max", "1", "--duration", "2", "--concurrency", "4", "--targets", "quiver,quiver-before",
        "--before", jar.toString(), "--out", Path.of("target", "workload-two-builds.json").toString()}).get(0);

    Report report = Workload.run(options);

    assertThat(report.results()).extracting(Report.Measured::target).containsExactly("quiver", "quiver-before");
    assertThat(report.results()).allSatisfy(run -> {
      assertThat(run.opsPerSecond()).isPositive();
      assertThat(run.countsAgree()).as("%s's counts equal its server's own", run.target()).isTrue();
      assertThat(run.hitRatios()).as("%s caches, as quiver does", run.target()).containsKey("nodes");
    });
    assertThat(report.notes()).anyMatch(note -> note.equals("quiver-before: " + jar
        + ", with quiver's settings on a data set of its own"));
    assertThat(report.notes()).as("two data sets, no Redis, four hosts")
        .anyMatch(note -> note.contains("[quiver, before]") && note.contains("all 4 MariaDB hosts")
            && !note.contains("Redis"));
    assertThat(report.table()).contains("| quiver | quiver-before |");
  }
}
