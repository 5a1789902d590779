package io.quiver.benchmarks.workload;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

class WorkloadOptionsTest {
  private static WorkloadOptions parse(String... args) {
    return WorkloadOptions.parseAll(args).get(0);
  }

  @Test
  void withoutTargets_everyTargetButOtherBuildsAndNamedOnlyOnesIsMeasured() {
    WorkloadOptions options = parse("--quick");

    assertThat(WorkloadOptions.TARGETS).filteredOn(options::measures)
        .containsExactly("quiver", "quiver-nocache", "lookaside", "jdbc-http", "jdbc", "bare-vertx");
  }

  @Test
  void quiverWithoutItsChangeLog_isMeasuredOnlyWhenNamed_andRunsWithChangesDisabled() {
    assertThat(parse("--quick").measures("quiver-nolog")).as("not in the default set").isFalse();
    assertThat(parse("--targets", "quiver,quiver-nolog,jdbc-http").measures("quiver-nolog")).isTrue();
    Workload.CacheBudget budget = new Workload.CacheBudget(1_000, 2_000, "test");
    ObjectMapper json = new ObjectMapper();

    ObjectNode nolog = Workload.quiverSettings("quiver-nolog", json.createObjectNode(), budget);
    ObjectNode shipped = Workload.quiverSettings("quiver", json.createObjectNode(), budget);
    ObjectNode nocache = Workload.quiverSettings("quiver-nocache", json.createObjectNode(), budget);

    assertThat(nolog.at("/changes/enabled").asBoolean(true)).isFalse();
    assertThat(nolog.at("/cache/enabled").asBoolean()).as("its cache as quiver's").isTrue();
    assertThat(nolog.at("/cache/edgeMaxBytes").asLong()).isEqualTo(2_000);
    assertThat(shipped.has("changes")).as("quiver's change log as shipped").isFalse();
    assertThat(nocache.has("changes")).isFalse();
    assertThat(nocache.at("/cache/enabled").asBoolean()).isFalse();
  }

  @Test
  void quiverWithItsLogTailed_isMeasuredOnlyWhenNamed_andRunsWithTheLogWrittenFromTheBinaryLog() {
    assertThat(parse("--quick").measures("quiver-tailed")).as("not in the default set").isFalse();
    assertThat(parse("--targets", "quiver,quiver-tailed").measures("quiver-tailed")).isTrue();
    ObjectNode tailed = Workload.quiverSettings("quiver-tailed", new ObjectMapper().createObjectNode(),
        new Workload.CacheBudget(1_000, 2_000, "test"));

    assertThat(tailed.at("/changes/source").asText()).isEqualTo("binlog");
    assertThat(tailed.at("/changes/enabled").asBoolean(true)).as("the log kept").isTrue();
    assertThat(tailed.at("/cache/enabled").asBoolean()).as("its cache as quiver's").isTrue();
  }

  @Test
  void targets_measureOnlyThoseNamed_andTheOtherBuildOnlyWithItsJar() throws Exception {
    Path jar = Files.createTempFile("quiver-before", ".jar");

    assertThat(WorkloadOptions.TARGETS).filteredOn(parse("--targets", "quiver,lookaside")::measures)
        .containsExactly("quiver", "lookaside");
    WorkloadOptions twoBuilds = parse("--before", jar.toString(), "--build", "v2=" + jar);
    assertThat(twoBuilds.allTargets()).filteredOn(twoBuilds::measures).containsExactly("quiver", "quiver-before",
        "quiver-v2", "quiver-nocache", "lookaside", "jdbc-http", "jdbc", "bare-vertx");
    assertThat(twoBuilds.buildOf("quiver-v2")).isEqualTo(jar);
    assertThat(twoBuilds.buildOf("quiver-nocache")).as("this build, uncached").isNull();
    assertThatThrownBy(() -> parse("--targets", "quiver,quiver-before"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("quiver-LABEL needs --build LABEL=JAR");
    assertThatThrownBy(() -> parse("--build", "nocache=" + jar))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("a build's label");
    assertThatThrownBy(() -> parse("--build", jar.toString()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--build takes LABEL=QUIVER_JAR");
    assertThatThrownBy(() -> parse("--targets", "quiver,mongodb"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--targets takes some of");
    assertThatThrownBy(() -> parse("--targets", "bare-vertx"))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("at least one target with a database");
    assertThatThrownBy(() -> parse("--before", jar.resolveSibling("no-such.jar").toString()))
        .isInstanceOf(IllegalArgumentException.class).hasMessageContaining("--build before names no file");
  }
}
