package io.quiver.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** The access log gathers a JSON line per request and hands the logger batches. */
class AccessLogTest {
  private static final Instant AT = Instant.parse("2026-11-22T01:00:00.000123Z");

  @Test
  void lines_waitForAFlush_thenGoToTheLoggerAsOneBatchOfJsonLines() throws Exception {
    List<String> batches = new ArrayList<>();
    AccessLog log = new AccessLog(batches::add);

    log.append(AT, "GET", "/v1/nodes/1", "getNode", 200, 1_234_567, 175, "127.0.0.1:4000");
    log.append(AT, "PUT", "/v1/nodes/1/edges/follows/\"2\\", "addEdge", 404, 2_000_000, 90, "127.0.0.1:4001");
    assertThat(batches).as("nothing before a flush").isEmpty();
    log.flush();
    log.flush();

    assertThat(batches).hasSize(1);
    String[] lines = batches.get(0).split("\n");
    assertThat(lines).hasSize(2);
    JsonNode first = ApiJson.MAPPER.readTree(lines[0]);
    assertThat(first.get("time").asText()).isEqualTo("2026-11-22T01:00:00.000123Z");
    assertThat(first.get("method").asText()).isEqualTo("GET");
    assertThat(first.get("operation").asText()).isEqualTo("getNode");
    assertThat(first.get("status").asInt()).isEqualTo(200);
    assertThat(first.get("ms").asDouble()).isEqualTo(1.235);
    assertThat(first.get("bytesOut").asLong()).isEqualTo(175);
    assertThat(first.get("remote").asText()).isEqualTo("127.0.0.1:4000");
    assertThat(ApiJson.MAPPER.readTree(lines[1]).get("path").asText())
        .as("quotes and backslashes escaped").isEqualTo("/v1/nodes/1/edges/follows/\"2\\");
  }

  @Test
  void aFullBuffer_goesToTheLoggerWithoutWaitingForTheTimer() {
    List<String> batches = new ArrayList<>();
    AccessLog log = new AccessLog(batches::add);

    int appended = 0;
    while (batches.isEmpty()) {
      log.append(AT, "GET", "/v1/nodes/" + appended, "getNode", 200, 1000, 175, "127.0.0.1:4000");
      appended++;
    }

    assertThat(batches.get(0).length()).isGreaterThanOrEqualTo(AccessLog.BUFFER_CHARS);
    assertThat(batches.get(0).split("\n")).hasSize(appended);
  }
}
