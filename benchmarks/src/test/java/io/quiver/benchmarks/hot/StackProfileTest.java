package io.quiver.benchmarks.hot;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.within;

import java.util.Map;
import org.junit.jupiter.api.Test;

/** How a case's collapsed stacks become CPU per request by layer. */
class StackProfileTest {
  private static final String EVERY = "every thread of the servers' JVM";
  private static final String HANDLER = "the request's handler";
  private static final String CALL = "Quiver's call (route table, store, answer)";
  private static final String RENDERING = "rendering JSON";
  private static final String COMPILER = "the JIT compiler";

  private static final String ROUND = String.join("\n",
      "java/lang/Thread.run;io/netty/channel/nio/NioIoHandler.run;io/vertx/core/http/impl/Http1xServerRequestHandler.handle;"
          + "io/quiver/api/http/RouteTable.handle;io/quiver/api/http/ApiJson.render 3000000",
      "java/lang/Thread.run;io/netty/channel/nio/NioIoHandler.run;io/vertx/core/http/impl/Http1xServerRequestHandler.handle;"
          + "io/quiver/api/http/RouteTable.handle 2000000",
      "java/lang/Thread.run;io/netty/channel/nio/NioIoHandler.run;io/netty/channel/nio/NioIoHandler.select;epoll_wait 4000000",
      "clone3;start_thread;CompileBroker::compiler_thread_loop 1000000",
      "");

  @Test
  void aStack_countsTowardsEveryLayerItHolds_soLayersNestAsTheirCodeDoes() {
    StackProfile profile = new StackProfile();
    profile.add(ROUND, 1_000);

    Map<String, Double> micros = profile.microsPerRequest();

    // 10 ms of CPU over 1,000 requests: 10 µs each, of which the handler 5, Quiver's call 5, rendering 3.
    assertThat(micros.get(EVERY)).isCloseTo(10.0, within(1e-9));
    assertThat(micros.get(HANDLER)).isCloseTo(5.0, within(1e-9));
    assertThat(micros.get(CALL)).isCloseTo(5.0, within(1e-9));
    assertThat(micros.get(RENDERING)).isCloseTo(3.0, within(1e-9));
    assertThat(micros.get(COMPILER)).isCloseTo(1.0, within(1e-9));
    assertThat(micros.get("the collector")).isZero();
  }

  @Test
  void rounds_addUp_perRequestOfAllOfThem() {
    StackProfile profile = new StackProfile();
    profile.add(ROUND, 1_000);
    profile.add(ROUND, 3_000);

    // Twice the CPU over four times the requests.
    assertThat(profile.microsPerRequest().get(EVERY)).isCloseTo(5.0, within(1e-9));
  }

  @Test
  void linesThatAreNoStack_areSkipped_andNoRequestGivesZeros() {
    StackProfile profile = new StackProfile();
    profile.add("no count here\n  \njava/lang/Thread.run notANumber\n", 0);

    assertThat(profile.microsPerRequest().values()).containsOnly(0.0);
  }
}
