package io.quiver.benchmarks.bulk;

import io.quiver.api.server.QuiverServer;
import io.quiver.benchmarks.CpuTime;
import io.quiver.client.ImportReport;
import io.quiver.client.QuiverClient;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.quiver.schema.EdgeType;
import io.quiver.store.ChangeLogSettings;
import io.quiver.store.NodeId;
import io.quiver.store.TableNames;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import java.io.BufferedWriter;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Map;
import java.util.LinkedHashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Random;
import java.util.Set;

/**
 * {@code ./bench import}: edges per second loaded by a bulk import ({@code POST /v1/bulk}) against
 * one HTTP call per edge ({@code PUT …/edges/follows/{to}}, one after another, as a loader script
 * would), both with inverse edges, in one run on the dev stack (two embedded MariaDB hosts, one
 * server with its cache). The users are imported first; a warm-up import of edges follows, then
 * the measured one; then the single calls. The report gives both rates, their ratio, and the CPU
 * each side took: this JVM runs the server and the client (which only streams a file and reads
 * the progress), the MariaDB processes the hosts. Beside them, as the floor: the same rows written
 * as plain multi-row INSERTs over JDBC, which keep no counts and no outbox.
 *
 * <p>{@code ./bench import [--users N] [--edges N] [--warmup-edges N] [--single N] [--change-log on|off]}:
 * {@code --change-log off} runs the server without its change log, to show what the log costs.
 */
public final class BulkImportBenchmark {
  private BulkImportBenchmark() {}

  public static void main(String[] args) throws Exception {
    int users = 10_000;
    int edges = 100_000;
    int warmupEdges = 30_000;
    int single = 3_000;
    boolean changeLog = true;
    for (int i = 0; i < args.length; i++) {
      switch (args[i]) {
        case "--users" -> users = Integer.parseInt(args[++i]);
        case "--edges" -> edges = Integer.parseInt(args[++i]);
        case "--warmup-edges" -> warmupEdges = Integer.parseInt(args[++i]);
        case "--single" -> single = Integer.parseInt(args[++i]);
        case "--change-log" -> changeLog = switch (args[++i]) {
          case "on" -> true;
          case "off" -> false;
          default -> throw new IllegalArgumentException("--change-log takes on or off");
        };
        default -> {
          System.err.println("usage: ./bench import [--users N] [--edges N] [--warmup-edges N] [--single N]"
              + " [--change-log on|off]");
          System.exit(2);
        }
      }
    }
    Path target = Path.of("benchmarks", "target").toAbsolutePath();
    Files.createDirectories(target);
    try (DevStack stack = DevStack.start(target.resolve("import-data-" + System.currentTimeMillis()));
        QuiverServer server = QuiverServer.start(stack.config(Ports.free())
            .withChangeLog(changeLog ? ChangeLogSettings.defaults() : ChangeLogSettings.disabled()), stack.schema());
        QuiverClient quiver = QuiverClient.create(URI.create("http://127.0.0.1:" + server.port()), Duration.ofSeconds(30))) {
      Random random = new Random(42);
      Path usersFile = write(target.resolve("import-users.ndjson"), userLines(users));
      ImportReport imported = quiver.bulkImport("bench-users", usersFile, progress -> { });
      List<Long> ids = new ArrayList<>(imported.nodes().values());
      System.out.printf("%d users imported%n", ids.size());

      Set<Long> taken = new HashSet<>();
      Path warmup = write(target.resolve("import-warmup.ndjson"), edgeLines(ids, warmupEdges, random, taken));
      quiver.bulkImport("bench-warmup", warmup, progress -> { });
      System.out.printf("warm-up: %d edges imported%n", warmupEdges);

      Path measured = write(target.resolve("import-edges.ndjson"), edgeLines(ids, edges, random, taken));
      Measured bulk = measure(() -> {
        ImportReport report = quiver.bulkImport("bench-edges", measured, progress -> { });
        if (report.edgesCreated() != report.lines() || report.inversesLeft() != 0) {
          throw new IllegalStateException("the import did not write every edge and inverse: " + report);
        }
      }, edges);

      List<long[]> plainPairs = pairs(ids, edges, random, taken);
      Measured plain = measure(() -> plainInserts(stack, plainPairs), edges);

      List<long[]> pairs = pairs(ids, single, random, taken);
      Measured oneByOne = measure(() -> {
        for (long[] pair : pairs) {
          quiver.addEdge(pair[0], "follows", pair[1]);
        }
      }, single);

      System.out.println();
      System.out.printf(Locale.ROOT, "%-34s %12s %14s %14s%n", "loading follows edges (with inverses)", "edges/s",
          "MariaDB ms/edge", "JVM ms/edge");
      System.out.printf(Locale.ROOT, "%-34s %12.0f %14.3f %14.3f%n", "bulk import, " + edges + " edges", bulk.perSecond(),
          bulk.databaseMs(), bulk.jvmMs());
      System.out.printf(Locale.ROOT, "%-34s %12.0f %14.3f %14.3f%n", "one call per edge, " + single + " edges",
          oneByOne.perSecond(), oneByOne.databaseMs(), oneByOne.jvmMs());
      System.out.printf(Locale.ROOT, "%-34s %12.0f %14.3f %14.3f%n", "plain inserts, " + edges + " edges",
          plain.perSecond(), plain.databaseMs(), plain.jvmMs());
      System.out.printf(Locale.ROOT, "bulk / one call per edge: %.1f×; bulk's time ÷ plain inserts': %.2f×; %d cores"
          + " shared by the server, the client and both MariaDB hosts%n", bulk.perSecond() / oneByOne.perSecond(),
          plain.perSecond() / bulk.perSecond(), Runtime.getRuntime().availableProcessors());
    }
    System.exit(0);
  }

  private interface Work {
    void run() throws Exception;
  }

  /** A phase's rate, and the CPU per edge of the MariaDB processes and of this JVM. */
  private record Measured(double perSecond, double databaseMs, double jvmMs) {}

  private static Measured measure(Work work, int edges) throws Exception {
    double database = CpuTime.mariaDbProcesses();
    double jvm = CpuTime.thisProcess();
    long started = System.nanoTime();
    work.run();
    double seconds = (System.nanoTime() - started) / 1e9;
    return new Measured(edges / seconds, (CpuTime.mariaDbProcesses() - database) * 1000 / edges,
        (CpuTime.thisProcess() - jvm) * 1000 / edges);
  }

  /** One edge table of one shard. */
  private record Table(int shard, EdgeType type) {}

  /** Rows per plain multi-row INSERT: the bulk import's batch. */
  private static final int PLAIN_BATCH = 1024;

  /**
   * What a hand-written loader does that wants both directions: the same rows the import writes —
   * each edge and its inverse — as multi-row INSERTs of {@value #PLAIN_BATCH} rows over JDBC, one
   * autocommitted statement per table and shard at a time, and nothing else: no counts, no outbox,
   * no checks that the nodes exist, no HTTP.
   */
  private static void plainInserts(DevStack stack, List<long[]> pairs) throws SQLException {
    ShardMap map = stack.shardMap();
    EdgeType follows = stack.schema().edgeType("follows").orElseThrow();
    EdgeType followedBy = stack.schema().edgeType("followed_by").orElseThrow();
    Map<Table, List<long[]>> rows = new LinkedHashMap<>();
    for (long[] pair : pairs) {
      rows.computeIfAbsent(new Table(new NodeId(pair[0]).shard(), follows), key -> new ArrayList<>())
          .add(new long[] {pair[0], pair[1]});
      rows.computeIfAbsent(new Table(new NodeId(pair[1]).shard(), followedBy), key -> new ArrayList<>())
          .add(new long[] {pair[1], pair[0]});
    }
    Map<String, Connection> connections = new HashMap<>();
    try {
      long now = System.currentTimeMillis() * 1000;
      for (Map.Entry<Table, List<long[]>> table : rows.entrySet()) {
        Host host = map.hosts().get(map.rangeOf(table.getKey().shard()).orElseThrow().host());
        Connection connection = connections.get(host.name());
        if (connection == null) {
          connection = DriverManager.getConnection("jdbc:mysql://" + host.primary() + "/?useServerPrepStmts=true",
              "root", "");
          connections.put(host.name(), connection);
        }
        List<long[]> all = table.getValue();
        for (int start = 0; start < all.size(); start += PLAIN_BATCH) {
          List<long[]> batch = all.subList(start, Math.min(all.size(), start + PLAIN_BATCH));
          StringBuilder sql = new StringBuilder("INSERT INTO ")
              .append(TableNames.edges(table.getKey().shard(), table.getKey().type()))
              .append(" (from_id, to_id, sequence, state, data, updated_us) VALUES ");
          for (int i = 0; i < batch.size(); i++) {
            sql.append(i == 0 ? "" : ", ").append("(?, ?, ?, 1, NULL, ?)");
          }
          try (PreparedStatement insert = connection.prepareStatement(sql.toString())) {
            int at = 1;
            for (long[] row : batch) {
              insert.setLong(at++, row[0]);
              insert.setLong(at++, row[1]);
              insert.setLong(at++, now);
              insert.setLong(at++, now);
            }
            insert.executeUpdate();
          }
        }
      }
    } finally {
      for (Connection connection : connections.values()) {
        connection.close();
      }
    }
  }

  private static List<String> userLines(int users) {
    List<String> lines = new ArrayList<>(users);
    for (int i = 0; i < users; i++) {
      lines.add("{\"node\": {\"ref\": \"u" + i + "\", \"type\": \"user\", \"data\": {\"name\": \"user " + i + "\"}}}");
    }
    return lines;
  }

  private static List<String> edgeLines(List<Long> ids, int edges, Random random, Set<Long> taken) {
    List<String> lines = new ArrayList<>(edges);
    for (long[] pair : pairs(ids, edges, random, taken)) {
      lines.add("{\"edge\": {\"from\": \"" + pair[0] + "\", \"type\": \"follows\", \"to\": \"" + pair[1] + "\"}}");
    }
    return lines;
  }

  /** Distinct (from, to) pairs of distinct users not drawn before. */
  private static List<long[]> pairs(List<Long> ids, int count, Random random, Set<Long> taken) {
    List<long[]> pairs = new ArrayList<>(count);
    while (pairs.size() < count) {
      int from = random.nextInt(ids.size());
      int to = random.nextInt(ids.size());
      if (from != to && taken.add((long) from * ids.size() + to)) {
        pairs.add(new long[] {ids.get(from), ids.get(to)});
      }
    }
    return pairs;
  }

  private static Path write(Path file, List<String> lines) throws IOException {
    try (BufferedWriter out = Files.newBufferedWriter(file)) {
      for (String line : lines) {
        out.write(line);
        out.write('\n');
      }
    }
    return file;
  }
}
