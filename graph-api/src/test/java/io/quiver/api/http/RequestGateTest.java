package io.quiver.api.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/** The gate's check of a raw path, character by character (the hostile requests over HTTP are in {@link HostileRequestsTest}). */
class RequestGateTest {

  @Test
  void aSegmentHoldingOneAsciiCharacter_isRefusedExactlyWhenItIsAControlABackslashOrABareEscapeSign() {
    for (char c = 0; c < 0x80; c++) {
      if (c == '/') {
        continue; // a separator, not a segment's character
      }
      String path = "/v1/nodes/a" + c + "z";
      boolean refused = Character.isISOControl(c) || c == '\\' || c == '%';
      assertThat(RequestGate.pathProblem(path)).as("path with character %d", (int) c).matches(
          problem -> (problem != null) == refused, refused ? "refused" : "let through");
    }
  }

  @Test
  void escapesAreDecodedBeforeTheyAreJudged() {
    assertThat(RequestGate.pathProblem("/v1/nodes/a%20z")).isNull();
    assertThat(RequestGate.pathProblem("/v1/nodes/%2e%2e/2")).contains("dot-segment");
    assertThat(RequestGate.pathProblem("/v1/nodes/a%2Fz")).contains("encoded slash");
    assertThat(RequestGate.pathProblem("/v1/nodes/..")).contains("dot-segment");
    assertThat(RequestGate.pathProblem("/v1/nodes/.x")).isNull();
  }
}
