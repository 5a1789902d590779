package io.quiver.benchmarks.fleet;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.server.QuiverServer;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.lang.management.ManagementFactory;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * {@code ./bench replication [--seconds S] [--writers N] [--rounds R]}: what semi-synchronous
 * replication costs a write. The same dev stack (two hosts) with no replica and with one replica per
 * host (seeded, confirming every write before it is acknowledged), in alternating rounds on one
 * machine; in each, N callers (default 16) add {@code follows} edges (each with its inverse, through
 * the outbox) over HTTP for S seconds (default 15, after 5 s of warm-up). Reports writes per second
 * and latency percentiles per configuration, and the ratio.
 *
 * <p>The server runs in this JVM beside the callers, and on this 2-core machine the replicas' MariaDB
 * processes take CPU from the primaries: the figures are a ratio between the two configurations,
 * measured alike, not absolute speeds. The callers' own CPU is printed.
 */
public final class ReplicationBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int USERS = 2000;

  private ReplicationBenchmark() {}

  private record Result(int replicas, double opsPerSecond, Histogram latency, long failures) {}

  public static void main(String[] args) throws Exception {
    int seconds = 15;
    int writers = 16;
    int rounds = 2;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--seconds") && i + 1 < args.length) {
        seconds = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--writers") && i + 1 < args.length) {
        writers = Integer.parseInt(args[++i]);
      } else if (args[i].equals("--rounds") && i + 1 < args.length) {
        rounds = Integer.parseInt(args[++i]);
      } else {
        System.err.println("usage: ./bench replication [--seconds S] [--writers N] [--rounds R]");
        System.exit(2);
      }
    }
    Path target = Path.of("benchmarks", "target").toAbsolutePath();
    Files.createDirectories(target);
    long cpuBefore = processCpuNanos();
    long wallBefore = System.nanoTime();
    List<Result> results = new ArrayList<>();
    for (int round = 0; round < rounds; round++) {
      for (int replicas : new int[] {0, 1}) {
        results.add(run(target.resolve("replication-data-" + System.nanoTime()), replicas, writers, seconds));
      }
    }
    System.out.printf("%n| replicas per host | writes/s | p50 ms | p99 ms | p99.9 ms | failed |%n|---|---:|---:|---:|---:|---:|%n");
    double[] sums = new double[2];
    for (Result result : results) {
      sums[result.replicas()] += result.opsPerSecond();
      System.out.printf(Locale.ROOT, "| %d | %,.0f | %.1f | %.1f | %.1f | %d |%n", result.replicas(),
          result.opsPerSecond(), result.latency().getValueAtPercentile(50) / 1000.0,
          result.latency().getValueAtPercentile(99) / 1000.0, result.latency().getValueAtPercentile(99.9) / 1000.0,
          result.failures());
    }
    System.out.printf(Locale.ROOT, "%nwith one replica per host: %.2f x the writes per second of none (mean of %d rounds)%n",
        sums[1] / sums[0], rounds);
    System.out.printf(Locale.ROOT, "this JVM (server and callers) used %.1f s of CPU in %.1f s%n",
        (processCpuNanos() - cpuBefore) / 1e9, (System.nanoTime() - wallBefore) / 1e9);
  }

  private static Result run(Path data, int replicas, int writers, int seconds) throws Exception {
    try (DevStack stack = DevStack.start(data, DevStack.MIN_HOSTS, replicas, List.of());
        QuiverServer server = QuiverServer.start(stack.config(Ports.free()), stack.schema())) {
      stack.attachReplicas(server.admin());
      List<NodeId> users = new ArrayList<>();
      ObjectNode user = (ObjectNode) JSON.readTree("{\"name\": \"u\"}");
      for (int i = 0; i < USERS; i++) {
        users.add(server.store().createNode("user", user, null).await().id());
      }
      Vertx vertx = Vertx.vertx();
      try {
        // One connection per caller.
        WebClient http = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true).setTcpNoDelay(true),
            new PoolOptions().setHttp1MaxSize(writers));
        drive(http, server.port(), users, writers, 5, null, new AtomicLong());
        Histogram latency = new ConcurrentHistogram(3);
        AtomicLong failures = new AtomicLong();
        long started = System.nanoTime();
        long done = drive(http, server.port(), users, writers, seconds, latency, failures);
        double opsPerSecond = done / ((System.nanoTime() - started) / 1e9);
        System.out.printf(Locale.ROOT, "%d replica(s) per host: %,.0f writes/s%n", replicas, opsPerSecond);
        return new Result(replicas, opsPerSecond, latency, failures.get());
      } finally {
        vertx.close().await();
      }
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(data.toFile());
    }
  }

  /** {@code writers} callers adding follows edges for {@code seconds}; answers how many were acknowledged. */
  private static long drive(WebClient http, int port, List<NodeId> users, int writers, int seconds,
      Histogram latency, AtomicLong failures) {
    long until = System.nanoTime() + seconds * 1_000_000_000L;
    AtomicLong acknowledged = new AtomicLong();
    List<Future<Void>> callers = new ArrayList<>();
    for (int i = 0; i < writers; i++) {
      Promise<Void> finished = Promise.promise();
      next(http, port, users, until, latency, failures, acknowledged, finished);
      callers.add(finished.future());
    }
    Future.all(callers).await();
    return acknowledged.get();
  }

  private static void next(WebClient http, int port, List<NodeId> users, long until, Histogram latency,
      AtomicLong failures, AtomicLong acknowledged, Promise<Void> finished) {
    if (System.nanoTime() >= until) {
      finished.complete();
      return;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    NodeId from = users.get(random.nextInt(users.size()));
    NodeId to = users.get(random.nextInt(users.size()));
    long sent = System.nanoTime();
    http.put(port, "127.0.0.1", "/v1/nodes/" + from + "/edges/follows/" + to).send().onComplete(answer -> {
      if (answer.succeeded() && answer.result().statusCode() < 300) {
        acknowledged.incrementAndGet();
        if (latency != null) {
          latency.recordValue(Math.max(1, (System.nanoTime() - sent) / 1000));
        }
      } else {
        failures.incrementAndGet();
      }
      next(http, port, users, until, latency, failures, acknowledged, finished);
    });
  }

  private static long processCpuNanos() {
    return ((com.sun.management.OperatingSystemMXBean) ManagementFactory.getOperatingSystemMXBean())
        .getProcessCpuTime();
  }
}
