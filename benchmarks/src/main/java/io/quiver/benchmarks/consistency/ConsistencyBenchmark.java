package io.quiver.benchmarks.consistency;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.api.server.QuiverServer;
import io.quiver.benchmarks.CpuTime;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.quiver.store.NodeId;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.ext.web.client.HttpRequest;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReferenceArray;
import org.HdrHistogram.ConcurrentHistogram;
import org.HdrHistogram.Histogram;

/**
 * {@code ./bench consistency [--seconds S] [--writers N] [--readers N] [--rounds R]}: what
 * read-your-writes tokens and atomic multi-reads cost, measured alike in one run.
 *
 * <p>The dev stack (two hosts) and two Quiver servers over it, in this JVM. N writers (default 8)
 * on the first server add and remove {@code board_has_pins} edges (each with its inverse on the
 * pin's shard, through the outbox) and update boards, over HTTP; each keeps the token of its last
 * write ({@code Quiver-Token}) and which board and pin it touched. M readers (default 8) on the
 * second server each follow one writer and read what it last wrote, in one of four phases, S
 * seconds each (default 15), in an order rotated every round (default 3 rounds):
 * <ul>
 *   <li>{@code writes alone}: no reader;
 *   <li>{@code plain reads}: the board's pins ({@code GET …/edges/board_has_pins}), as today;
 *   <li>{@code token reads}: the same read carrying the writer's token, so it must show the write
 *       (and its inverse and counts) or answer 503;
 *   <li>{@code atomic reads}: {@code POST /v1/read} of the board, its pins and the pin's boards
 *       (the write's two copies), answered without a torn pair; its {@code rounds} counted.
 * </ul>
 * Reported per phase: writes and reads per second, read latency, refused reads, and the share of
 * multi-reads that took a second round; then each phase's writes per second against the plain
 * reads' (the same number of readers, doing nothing for consistency) — the cost to writes.
 *
 * <p>Servers and callers share this JVM and the 2-core machine with MariaDB: the figures are
 * ratios between phases measured alike, not absolute speeds. This JVM's CPU is printed.
 */
public final class ConsistencyBenchmark {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int BOARDS = 200;
  private static final int PINS = 2000;
  private static final String TOKEN = "Quiver-Token";

  /** One phase's readers: none, or what each reads. */
  enum Phase {
    WRITES_ALONE("writes alone"), PLAIN("plain reads"), TOKEN("token reads"), ATOMIC("atomic reads");

    final String label;

    Phase(String label) {
      this.label = label;
    }
  }

  /** The options: {@code --seconds S --writers N --readers M --rounds R}. */
  record Options(int seconds, int writers, int readers, int rounds) {
    static Options parse(String[] args) {
      int seconds = 15;
      int writers = 8;
      int readers = 8;
      int rounds = 3;
      for (int i = 0; i < args.length; i++) {
        String value = i + 1 < args.length ? args[i + 1] : null;
        switch (args[i]) {
          case "--seconds" -> seconds = Integer.parseInt(value);
          case "--writers" -> writers = Integer.parseInt(value);
          case "--readers" -> readers = Integer.parseInt(value);
          case "--rounds" -> rounds = Integer.parseInt(value);
          default -> {
            System.err.println("usage: ./bench consistency [--seconds S] [--writers N] [--readers M] [--rounds R]");
            System.exit(2);
          }
        }
        i++;
      }
      if (seconds < 1 || writers < 1 || readers < 1 || rounds < 1) {
        throw new IllegalArgumentException("--seconds, --writers, --readers and --rounds must be at least 1");
      }
      return new Options(seconds, writers, readers, rounds);
    }
  }

  /** What one phase of one round counted. */
  record Measured(Phase phase, double writesPerSecond, double readsPerSecond, Histogram readLatency, long refused,
      long failed, long multiReads, long secondRounds) {}

  /** What the writers last did, one slot per writer, read by the readers that follow them. */
  private record Written(NodeId board, NodeId pin, String token) {}

  private final Options options;
  private final WebClient http;
  private final int writePort;
  private final int readPort;
  private final List<NodeId> boards;
  private final List<NodeId> pins;
  private final AtomicReferenceArray<Written> written;

  private ConsistencyBenchmark(Options options, WebClient http, int writePort, int readPort, List<NodeId> boards,
      List<NodeId> pins) {
    this.options = options;
    this.http = http;
    this.writePort = writePort;
    this.readPort = readPort;
    this.boards = boards;
    this.pins = pins;
    this.written = new AtomicReferenceArray<>(options.writers());
  }

  public static void main(String[] args) throws Exception {
    Options options = Options.parse(args);
    Path data = Path.of("benchmarks", "target", "consistency-data-" + System.currentTimeMillis()).toAbsolutePath();
    Files.createDirectories(data);
    double cpuBefore = CpuTime.thisProcess();
    long wallBefore = System.nanoTime();
    try (DevStack stack = DevStack.start(data, DevStack.MIN_HOSTS, 0, List.of());
        QuiverServer writes = QuiverServer.start(stack.config(Ports.free()), stack.schema());
        QuiverServer reads = QuiverServer.start(stack.config(Ports.free()), stack.schema())) {
      List<NodeId> boards = create(writes, "board", "{\"title\": \"b\"}", BOARDS);
      List<NodeId> pins = create(writes, "pin", "{\"link\": \"l\"}", PINS);
      Vertx vertx = Vertx.vertx();
      try {
        WebClient http = WebClient.create(vertx, new WebClientOptions().setKeepAlive(true).setTcpNoDelay(true),
            new PoolOptions().setHttp1MaxSize(Math.max(options.writers(), options.readers())));
        ConsistencyBenchmark benchmark = new ConsistencyBenchmark(options, http, writes.port(), reads.port(), boards,
            pins);
        benchmark.phase(Phase.PLAIN, 5);
        List<Measured> all = new ArrayList<>();
        Phase[] phases = Phase.values();
        for (int round = 0; round < options.rounds(); round++) {
          for (int i = 0; i < phases.length; i++) {
            Measured measured = benchmark.phase(phases[(i + round) % phases.length], options.seconds());
            System.out.printf(Locale.ROOT, "round %d, %s: %,.0f writes/s, %,.0f reads/s%n", round + 1,
                measured.phase().label, measured.writesPerSecond(), measured.readsPerSecond());
            all.add(measured);
          }
        }
        print(all, options);
      } finally {
        vertx.close().await();
      }
    } finally {
      org.apache.commons.io.FileUtils.deleteDirectory(data.toFile());
    }
    System.out.printf(Locale.ROOT, "this JVM (both servers and every caller) used %.1f s of CPU in %.1f s%n",
        CpuTime.thisProcess() - cpuBefore, (System.nanoTime() - wallBefore) / 1e9);
  }

  private static List<NodeId> create(QuiverServer server, String type, String data, int count) throws Exception {
    ObjectNode json = (ObjectNode) JSON.readTree(data);
    List<NodeId> created = new ArrayList<>(count);
    for (int i = 0; i < count; i++) {
      created.add(server.store().createNode(type, json, null).await().id());
    }
    return created;
  }

  /** One phase: the writers, and the phase's readers, for {@code seconds}. */
  private Measured phase(Phase phase, int seconds) {
    long until = System.nanoTime() + seconds * 1_000_000_000L;
    Counts counts = new Counts();
    List<Future<Void>> callers = new ArrayList<>();
    for (int writer = 0; writer < options.writers(); writer++) {
      Promise<Void> done = Promise.promise();
      write(writer, until, counts, done);
      callers.add(done.future());
    }
    if (phase != Phase.WRITES_ALONE) {
      for (int reader = 0; reader < options.readers(); reader++) {
        Promise<Void> done = Promise.promise();
        read(phase, reader % options.writers(), until, counts, done);
        callers.add(done.future());
      }
    }
    long started = System.nanoTime();
    Future.all(callers).await();
    double elapsed = (System.nanoTime() - started) / 1e9;
    return new Measured(phase, counts.writes.get() / elapsed, counts.reads.get() / elapsed, counts.latency,
        counts.refused.get(), counts.failed.get(), counts.multiReads.get(), counts.secondRounds.get());
  }

  /** What a phase's callers count. */
  private static final class Counts {
    final AtomicLong writes = new AtomicLong();
    final AtomicLong reads = new AtomicLong();
    final AtomicLong refused = new AtomicLong();
    final AtomicLong failed = new AtomicLong();
    final AtomicLong multiReads = new AtomicLong();
    final AtomicLong secondRounds = new AtomicLong();
    final Histogram latency = new ConcurrentHistogram(3);
  }

  /** A writer: half adds, a quarter removals of a board's pin, a quarter updates of the board. */
  private void write(int writer, long until, Counts counts, Promise<Void> done) {
    if (System.nanoTime() >= until) {
      done.complete();
      return;
    }
    ThreadLocalRandom random = ThreadLocalRandom.current();
    NodeId board = boards.get(random.nextInt(boards.size()));
    NodeId pin = pins.get(random.nextInt(pins.size()));
    int what = random.nextInt(4);
    String edge = "/v1/nodes/" + board + "/edges/board_has_pins/" + pin;
    HttpRequest<Buffer> request = what < 2 ? http.put(writePort, "127.0.0.1", edge)
        : what == 2 ? http.delete(writePort, "127.0.0.1", edge)
        : http.patch(writePort, "127.0.0.1", "/v1/nodes/" + board);
    Future<HttpResponse<Buffer>> sent = what == 3
        ? request.sendBuffer(Buffer.buffer("{\"data\": {\"title\": \"t" + random.nextInt(1000) + "\"}}"))
        : request.send();
    sent.onComplete(answer -> {
      if (answer.succeeded() && answer.result().statusCode() < 300) {
        counts.writes.incrementAndGet();
        written.set(writer, new Written(board, pin, answer.result().getHeader(TOKEN)));
      } else {
        counts.failed.incrementAndGet();
      }
      write(writer, until, counts, done);
    });
  }

  /** A reader following {@code writer}: reads what it last wrote, as the phase says. */
  private void read(Phase phase, int writer, long until, Counts counts, Promise<Void> done) {
    if (System.nanoTime() >= until) {
      done.complete();
      return;
    }
    Written last = written.get(writer);
    if (last == null) {
      last = new Written(boards.get(0), pins.get(0), null);
    }
    long sent = System.nanoTime();
    String pinsOfBoard = "/v1/nodes/" + last.board() + "/edges/board_has_pins?limit=20";
    Future<HttpResponse<Buffer>> answer = switch (phase) {
      case PLAIN -> http.get(readPort, "127.0.0.1", pinsOfBoard).send();
      case TOKEN -> {
        HttpRequest<Buffer> request = http.get(readPort, "127.0.0.1", pinsOfBoard);
        if (last.token() != null) {
          request.putHeader(TOKEN, last.token());
        }
        yield request.send();
      }
      default -> http.post(readPort, "127.0.0.1", "/v1/read").sendBuffer(Buffer.buffer("{\"nodes\": [\""
          + last.board() + "\"], \"lists\": [{\"from\": \"" + last.board() + "\", \"type\": \"board_has_pins\"},"
          + " {\"from\": \"" + last.pin() + "\", \"type\": \"pin_owned_by_board\"}]}"));
    };
    answer.onComplete(result -> {
      int status = result.succeeded() ? result.result().statusCode() : 0;
      if (status == 200) {
        counts.reads.incrementAndGet();
        counts.latency.recordValue(Math.max(1, (System.nanoTime() - sent) / 1000));
        if (phase == Phase.ATOMIC) {
          counts.multiReads.incrementAndGet();
          if (rounds(result.result().body()) > 1) {
            counts.secondRounds.incrementAndGet();
          }
        }
      } else if (status == 503) {
        counts.refused.incrementAndGet();
      } else {
        counts.failed.incrementAndGet();
      }
      read(phase, writer, until, counts, done);
    });
  }

  /**
   * A multi-read answer's {@code rounds}, its last member, read from the answer's end: the load
   * generator shares the machine with what it measures, so it does not parse the whole answer.
   */
  static int rounds(Buffer body) {
    String tail = body.getString(Math.max(0, body.length() - 32), body.length());
    int at = tail.lastIndexOf("\"rounds\":");
    if (at < 0) {
      return 0;
    }
    int digits = at + "\"rounds\":".length();
    while (digits < tail.length() && tail.charAt(digits) == ' ') {
      digits++;
    }
    int end = digits;
    while (end < tail.length() && Character.isDigit(tail.charAt(end))) {
      end++;
    }
    return end == digits ? 0 : Integer.parseInt(tail.substring(digits, end));
  }

  /** The table of every phase's runs, the medians per phase, and each phase's writes against the plain reads'. */
  static void print(List<Measured> all, Options options) {
    System.out.printf(Locale.ROOT, "%n%d writers on one server, %d readers on another, %d s a phase, %d rounds in"
        + " rotated orders%n%n", options.writers(), options.readers(), options.seconds(), options.rounds());
    System.out.println("| phase | writes/s (median) | spread | reads/s (median) | read p50 / p99 ms | refused | failed"
        + " | multi-reads with a second round |");
    System.out.println("|---|---:|---|---:|---|---:|---:|---:|");
    Map<Phase, Double> writes = new EnumMap<>(Phase.class);
    for (Phase phase : Phase.values()) {
      List<Measured> runs = all.stream().filter(measured -> measured.phase() == phase)
          .sorted(java.util.Comparator.comparingDouble(Measured::writesPerSecond)).toList();
      if (runs.isEmpty()) {
        continue;
      }
      Measured median = runs.get(runs.size() / 2);
      writes.put(phase, median.writesPerSecond());
      long multiReads = runs.stream().mapToLong(Measured::multiReads).sum();
      long secondRounds = runs.stream().mapToLong(Measured::secondRounds).sum();
      List<Double> reads = runs.stream().map(Measured::readsPerSecond).sorted().toList();
      System.out.printf(Locale.ROOT, "| %s | %,.0f | %,.0f–%,.0f | %,.0f | %s | %d | %d | %s |%n", phase.label,
          median.writesPerSecond(), runs.get(0).writesPerSecond(), runs.get(runs.size() - 1).writesPerSecond(),
          reads.get(reads.size() / 2), phase == Phase.WRITES_ALONE ? "—" : String.format(Locale.ROOT, "%.2f / %.2f",
              median.readLatency().getValueAtPercentile(50) / 1000.0,
              median.readLatency().getValueAtPercentile(99) / 1000.0),
          runs.stream().mapToLong(Measured::refused).sum(), runs.stream().mapToLong(Measured::failed).sum(),
          phase == Phase.ATOMIC ? String.format(Locale.ROOT, "%.2f %% of %,d", 100.0 * secondRounds / multiReads,
              multiReads) : "—");
    }
    System.out.println();
    Double plain = writes.get(Phase.PLAIN);
    for (Phase phase : List.of(Phase.TOKEN, Phase.ATOMIC)) {
      if (plain != null && writes.containsKey(phase)) {
        System.out.printf(Locale.ROOT, "%s: %.2f x the writes per second beside plain reads (the same readers)%n",
            phase.label, writes.get(phase) / plain);
      }
    }
  }
}
