package io.quiver.testing;

import io.quiver.edge.EdgeRow;
import io.quiver.shard.ShardMap;
import io.quiver.sql.SqlNames;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Reads the shard tables straight from the hosts over JDBC, for assertions about what is stored:
 * every row of an edge table, outbox depth, and counts against rows.
 */
public final class ShardTables {
  private final TestBackend backend;

  public ShardTables(TestBackend backend) {
    this.backend = backend;
  }

  /** An edge row's key. */
  public record Key(long from, long to) {
    public Key mirror() {
      return new Key(to, from);
    }
  }

  /** Every row of an edge table on every shard, tombstones included. */
  public Map<Key, EdgeRow> edges(String edgeType) throws Exception {
    Map<Key, EdgeRow> rows = new HashMap<>();
    forEachShard((statement, shard) -> {
      try (ResultSet result = statement.executeQuery("SELECT from_id, to_id, sequence, state, data, updated_us FROM "
          + SqlNames.table(shard, "edges_" + edgeType))) {
        while (result.next()) {
          rows.put(new Key(result.getLong(1), result.getLong(2)),
              new EdgeRow(result.getLong(3), result.getInt(4), result.getString(5), result.getLong(6)));
        }
      }
    });
    return rows;
  }

  /** Rows of a table on every shard. */
  public long rows(String table) throws Exception {
    long[] total = {0};
    forEachShard((statement, shard) -> {
      try (ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM " + SqlNames.table(shard, table))) {
        result.next();
        total[0] += result.getLong(1);
      }
    });
    return total[0];
  }

  /** A node's data exactly as stored, or null. */
  public String storedData(String table, io.quiver.id.NodeId id) throws Exception {
    try (Connection connection = connect(hostIndexOf(id.shard()));
        java.sql.PreparedStatement statement = connection.prepareStatement(
            "SELECT data FROM " + SqlNames.table(id.shard(), table) + " WHERE local_id = ?")) {
      statement.setLong(1, id.local());
      try (ResultSet result = statement.executeQuery()) {
        return result.next() ? result.getString(1) : null;
      }
    }
  }

  /** Outbox entries on every shard: pending ones, or parked ones. */
  public long outboxEntries(boolean parked) throws Exception {
    long[] total = {0};
    forEachShard((statement, shard) -> {
      try (ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM " + SqlNames.table(shard, "outbox")
          + " WHERE parked = " + (parked ? 1 : 0))) {
        result.next();
        total[0] += result.getLong(1);
      }
    });
    return total[0];
  }

  /** Waits until every outbox is empty; fails after the timeout. */
  public void awaitOutboxesDrained(java.time.Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (outboxEntries(false) > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(outboxEntries(false) + " outbox entries still pending after " + timeout);
      }
      Thread.sleep(50);
    }
  }

  /** For every FROM node with a count row or active edges: (stored count, active rows). */
  public Map<Long, long[]> countsAgainstRows(String edgeType, int edgeTypeId) throws Exception {
    Map<Long, long[]> counts = new HashMap<>();
    forEachShard((statement, shard) -> {
      try (ResultSet result = statement.executeQuery("SELECT from_id, count FROM " + SqlNames.table(shard, "edge_counts")
          + " WHERE edge_type = " + edgeTypeId)) {
        while (result.next()) {
          counts.computeIfAbsent(result.getLong(1), k -> new long[2])[0] = result.getLong(2);
        }
      }
      try (ResultSet result = statement.executeQuery("SELECT from_id, COUNT(*) FROM "
          + SqlNames.table(shard, "edges_" + edgeType) + " WHERE state = 1 GROUP BY from_id")) {
        while (result.next()) {
          counts.computeIfAbsent(result.getLong(1), k -> new long[2])[1] = result.getLong(2);
        }
      }
    });
    return counts;
  }

  /** Runs one statement on the host of a shard. */
  public void execute(int shard, String sql) throws Exception {
    try (Connection connection = connect(hostIndexOf(shard)); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private interface PerShard {
    void run(Statement statement, int shard) throws Exception;
  }

  private void forEachShard(PerShard work) throws Exception {
    ShardMap map = backend.shardMap();
    List<String> hosts = List.of("h1", "h2");
    for (int host = 0; host < hosts.size(); host++) {
      try (Connection connection = connect(host); Statement statement = connection.createStatement()) {
        for (int shard : map.shardsOn(hosts.get(host))) {
          work.run(statement, shard);
        }
      }
    }
  }

  private int hostIndexOf(int shard) {
    return backend.shardMap().rangeOf(shard).orElseThrow().host().equals("h1") ? 0 : 1;
  }

  private Connection connect(int host) throws Exception {
    return DriverManager.getConnection("jdbc:mysql://" + backend.hosts().addresses().get(host) + "/",
        backend.hosts().user(), backend.hosts().password());
  }
}
