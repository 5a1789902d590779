package io.quiver.benchmarks.hot;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.api.config.QuiverConfig;
import java.time.Duration;
import org.junit.jupiter.api.Test;

/** How the hot path's generator keeps its connections, against what a Quiver server does with them. */
class LoadGeneratorTest {

  @Test
  void anIdleConnection_isClosedByTheGenerator_beforeAQuiverServerWouldCloseIt() {
    // The server closes a kept-alive connection that waits this long for a request; a client that
    // kept it longer would send a round's first requests on connections the server is closing.
    assertThat(Duration.ofSeconds(LoadGenerator.KEEP_ALIVE_SECONDS)).isLessThan(QuiverConfig.DEFAULT_HEADER_TIMEOUT);
  }
}
