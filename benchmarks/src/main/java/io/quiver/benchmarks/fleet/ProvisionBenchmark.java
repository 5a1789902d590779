package io.quiver.benchmarks.fleet;

import io.quiver.api.server.QuiverServer;
import io.quiver.dev.DevStack;
import io.quiver.embedded.Ports;
import io.quiver.fleet.ProvisionReport;
import io.quiver.store.GraphStore;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardSpan;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;

/**
 * {@code ./bench provision [--shards N]}: opens N new shards (default 1,024) on the dev stack's
 * empty third host through the admin service ({@code quiver shards open 8-1031 --host h3}): every
 * shard database and table is created first, then the map is published. Reports the time, the
 * databases and tables made, and the time of a second, idempotent provisioning pass over the whole
 * map (what {@code quiver provision} costs once everything exists).
 */
public final class ProvisionBenchmark {
  private ProvisionBenchmark() {}

  public static void main(String[] args) throws Exception {
    int shards = 1024;
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--shards") && i + 1 < args.length) {
        shards = Integer.parseInt(args[++i]);
      } else {
        System.err.println("usage: ./bench provision [--shards N]");
        System.exit(2);
      }
    }
    Path target = Path.of("benchmarks", "target").toAbsolutePath();
    Files.createDirectories(target);
    try (DevStack stack = DevStack.start(target.resolve("provision-data-" + System.currentTimeMillis()), 3);
        QuiverServer server = QuiverServer.start(stack.config(Ports.free()), stack.schema())) {
      ShardMap before = server.backend().shardMap();
      int from = before.allShards().size();
      ShardSpan span = new ShardSpan(from, from + shards - 1);
      String h3 = before.hosts().get("h3").primary();

      long start = System.nanoTime();
      server.admin().changeShardMap(new ShardMapChange.OpenShards(span, "h3", false), GraphStore.ANY_VERSION)
          .await();
      double opened = (System.nanoTime() - start) / 1e9;

      start = System.nanoTime();
      ProvisionReport again = server.admin().provision().await();
      double idempotent = (System.nanoTime() - start) / 1e9;

      long[] made = countOn(h3);
      System.out.printf("%nopened shards %s on h3 (one MariaDB host, embedded): %.1f s — %d databases and %d tables,"
              + " %.1f shards/s%n", span, opened, made[0], made[1], shards / opened);
      System.out.printf("a second provisioning pass over all %d shards (nothing left to create: %d databases, %d tables"
              + " made): %.1f s%n", again.shards(), again.databasesCreated(), again.tablesCreated(), idempotent);
    }
  }

  /** Shard databases and their tables on a host. */
  private static long[] countOn(String address) throws Exception {
    try (Connection connection = DriverManager.getConnection("jdbc:mysql://" + address + "/", DevStack.USER,
            DevStack.PASSWORD);
        Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(DISTINCT table_schema), COUNT(*)"
            + " FROM information_schema.tables WHERE table_schema LIKE 'db%'")) {
      rows.next();
      return new long[] {rows.getLong(1), rows.getLong(2)};
    }
  }
}
