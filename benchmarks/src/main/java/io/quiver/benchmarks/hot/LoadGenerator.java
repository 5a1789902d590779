package io.quiver.benchmarks.hot;

import io.quiver.benchmarks.CpuTime;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.LongAdder;

/**
 * A closed-loop GET generator in a JVM of its own, so that what it costs is not charged to the
 * server it measures: {@code connections} keep-alive connections on one event loop, each sending
 * its next request when the last is answered. It warms up once (its own JIT as much as the
 * server's), prints {@code warm}, then measures a period for each number of seconds it reads on
 * standard input, printing one line each: {@code requests=N seconds=S cpuSeconds=C errors=E}, its
 * own CPU time over the period included, so the report can show the generator's share of the
 * machine. Only 200 answers count as requests; each kind of other answer or failure is printed
 * ({@code error: status 503}, {@code error: <exception>}) the first time it is seen, and the
 * report repeats it. It exits when its input ends.
 *
 * <p>{@code java … LoadGenerator PORT PATH CONNECTIONS WARMUP_SECONDS}, then periods on stdin
 */
public final class LoadGenerator {
  /**
   * How long an idle connection is kept: less than a Quiver server's header timeout
   * ({@code http.headerTimeoutMs}, 10 s), which closes a kept-alive connection that long without a
   * request, as a client should be set up. Between its rounds a case waits 10 to 15 s while the
   * others are measured; with Vert.x's default of 60 s the server closed Quiver's connections —
   * and only Quiver's, the bare server keeping them — right as a round began, so that round
   * reconnected on Quiver's side alone and any request sent on a connection being closed failed
   * ({@code Connection was closed}: 16 at once, one per connection, on 2026-12-01). Now every case
   * starts each round on connections of its own opening.
   */
  static final int KEEP_ALIVE_SECONDS = 5;

  private LoadGenerator() {}

  public static void main(String[] args) throws Exception {
    int port = Integer.parseInt(args[0]);
    String path = args[1];
    int connections = Integer.parseInt(args[2]);
    long warmup = Long.parseLong(args[3]);
    Vertx vertx = Vertx.vertx();
    HttpClient client = vertx.createHttpClient(
        new HttpClientOptions().setDefaultHost("127.0.0.1").setDefaultPort(port).setKeepAlive(true).setTcpNoDelay(true)
            .setKeepAliveTimeout(KEEP_ALIVE_SECONDS),
        new PoolOptions().setHttp1MaxSize(connections));
    run(client, path, connections, warmup, new LongAdder(), new LongAdder());
    System.out.println("warm");
    System.out.flush();
    BufferedReader periods = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
    for (String line = periods.readLine(); line != null; line = periods.readLine()) {
      LongAdder done = new LongAdder();
      LongAdder errors = new LongAdder();
      double cpuBefore = CpuTime.thisProcess();
      long started = System.nanoTime();
      run(client, path, connections, Long.parseLong(line.trim()), done, errors);
      double elapsed = (System.nanoTime() - started) / 1e9;
      double cpu = CpuTime.thisProcess() - cpuBefore;
      System.out.printf("requests=%d seconds=%.3f cpuSeconds=%.3f errors=%d%n", done.sum(), elapsed, cpu, errors.sum());
      System.out.flush();
    }
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    System.exit(0);
  }

  /** Each kind of failed request, printed the first time it is seen (at most ten kinds). */
  private static final java.util.Set<String> REASONS = java.util.concurrent.ConcurrentHashMap.newKeySet();

  private static void run(HttpClient client, String path, int connections, long seconds, LongAdder done,
      LongAdder errors) throws InterruptedException {
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(seconds);
    CountDownLatch finished = new CountDownLatch(connections);
    for (int i = 0; i < connections; i++) {
      next(client, path, deadline, done, errors, finished);
    }
    finished.await();
  }

  private static void next(HttpClient client, String path, long deadline, LongAdder done, LongAdder errors,
      CountDownLatch finished) {
    if (System.nanoTime() >= deadline) {
      finished.countDown();
      return;
    }
    client.request(HttpMethod.GET, path)
        .compose(request -> request.send().compose(response -> response.body().map(response.statusCode())))
        .onComplete(answer -> {
          if (answer.succeeded() && answer.result() == 200) {
            done.increment();
          } else {
            errors.increment();
            String why = answer.succeeded() ? "status " + answer.result() : String.valueOf(answer.cause());
            if (REASONS.size() < 10 && REASONS.add(why)) {
              System.out.println("error: " + why);
            }
          }
          next(client, path, deadline, done, errors, finished);
        });
  }

}
