package io.quiver.benchmarks.writes;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.config.QuiverConfig;
import io.quiver.api.server.QuiverServer;
import io.quiver.benchmarks.CpuTime;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Consumer;
import java.util.function.UnaryOperator;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * What a setting costs a write, measured alike: the dev stack (two hosts) started afresh for each
 * {@link Variant}, in alternating rounds on one machine; in each, N callers (default 16) add {@code
 * follows} edges (each with its inverse, through the outbox) over HTTP for S seconds (default 15,
 * after 5 s of warm-up). Reports writes per second and latency percentiles per variant, and the
 * ratio of each to the first.
 *
 * <p>The server runs in this JVM beside the callers, on a 2-core machine beside its MariaDB
 * processes: the figures are ratios between variants measured alike, not absolute speeds. The
 * JVM's CPU (server and callers) is printed.
 */
public final class WriteRounds {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int USERS = 2000;

  /**
   * One configuration: its name, replicas per host, how the server's configuration differs, and
   * what to measure on the running server after the writes (null: nothing).
   */
  public record Variant(String name, int replicas, UnaryOperator<QuiverConfig> configure, Consumer<QuiverServer> after) {}

  /** One round of one variant. */
  public record Result(Variant variant, double opsPerSecond, Histogram latency, long failures) {}

  /** The options every write benchmark takes. */
  public record Options(int seconds, int writers, int rounds) {
    /** {@code --seconds S --writers N --rounds R}; exits with {@code usage} on anything else. */
    public static Options parse(String[] args, String usage) {
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
          System.err.println("usage: " + usage);
          System.exit(2);
        }
      }
      return new Options(seconds, writers, rounds);
    }
  }

  private WriteRounds() {}

  /** Runs every variant once a round, for {@code options.rounds()} rounds, and prints the table and the ratios. */
  public static List<Result> run(Options options, List<Variant> variants, String dataPrefix) throws Exception {
    Path target = Path.of("benchmarks", "target").toAbsolutePath();
    Files.createDirectories(target);
    double cpuBefore = CpuTime.thisProcess();
    long wallBefore = System.nanoTime();
    List<Result> results = new ArrayList<>();
    for (int round = 0; round < options.rounds(); round++) {
      for (Variant variant : variants) {
        results.add(round(target.resolve(dataPrefix + "-" + System.nanoTime()), variant, options));
      }
    }
    System.out.printf("%n| variant | writes/s | p50 ms | p99 ms | p99.9 ms | failed |%n|---|---:|---:|---:|---:|---:|%n");
    double[] sums = new double[variants.size()];
    for (Result result : results) {
      sums[variants.indexOf(result.variant())] += result.opsPerSecond();
      System.out.printf(Locale.ROOT, "| %s | %,.0f | %.1f | %.1f | %.1f | %d |%n", result.variant().name(),
          result.opsPerSecond(), result.latency().getValueAtPercentile(50) / 1000.0,
          result.latency().getValueAtPercentile(99) / 1000.0, result.latency().getValueAtPercentile(99.9) / 1000.0,
          result.failures());
    }
    System.out.println();
    for (int i = 1; i < variants.size(); i++) {
      System.out.printf(Locale.ROOT, "%s: %.2f x the writes per second of %s (mean of %d rounds)%n",
          variants.get(i).name(), sums[i] / sums[0], variants.get(0).name(), options.rounds());
    }
    System.out.printf(Locale.ROOT, "this JVM (server and callers) used %.1f s of CPU in %.1f s%n",
        CpuTime.thisProcess() - cpuBefore, (System.nanoTime() - wallBefore) / 1e9);
    return results;
  }

  private static Result round(Path data, Variant variant, Options options) throws Exception {
    try (DevStack stack = DevStack.start(data, DevStack.MIN_HOSTS, variant.replicas(), List.of());
        QuiverServer server = QuiverServer.start(variant.configure().apply(stack.config(Ports.free())),
            stack.schema())) {
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
            new PoolOptions().setHttp1MaxSize(options.writers()));
        drive(http, server.port(), users, options.writers(), 5, null, new AtomicLong());
        Histogram latency = new ConcurrentHistogram(3);
        AtomicLong failures = new AtomicLong();
        long started = System.nanoTime();
        long done = drive(http, server.port(), users, options.writers(), options.seconds(), latency, failures);
        double opsPerSecond = done / ((System.nanoTime() - started) / 1e9);
        System.out.printf(Locale.ROOT, "%s: %,.0f writes/s%n", variant.name(), opsPerSecond);
        if (variant.after() != null) {
          variant.after().accept(server);
        }
        return new Result(variant, opsPerSecond, latency, failures.get());
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
}
