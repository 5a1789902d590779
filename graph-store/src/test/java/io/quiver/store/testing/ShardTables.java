package io.quiver.store.testing;

import io.quiver.schema.EdgeType;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaStore;
import io.quiver.store.NodeId;
import io.quiver.store.internal.outbox.OutboxOp;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.NodesTable;
import io.quiver.store.internal.table.UniqueTable;
import io.quiver.store.internal.table.OutboxTable;
import io.quiver.store.internal.table.ShardTable;
import io.quiver.store.shard.ShardMap;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.Statement;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the shard tables straight from the hosts over JDBC, for assertions about what is stored —
 * every row of an edge table, outbox depth, counts against rows — through the same table classes
 * the store uses, so no table's name or columns are written twice.
 */
public final class ShardTables {
  /** The due time of a held-back outbox entry: never, until let go. */
  public static final long HELD_BACK_US = Long.MAX_VALUE / 2;

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

  /** The schema as the registry holds it now: tests define types as they run. */
  public Schema schema() {
    try {
      return new SchemaStore(backend.curator(), TestBackend.SCHEMA_PATH).read().orElse(backend.schema());
    } catch (Exception e) {
      throw new IllegalStateException("could not read the schema from ZooKeeper", e);
    }
  }

  public EdgesTable edgesTable(String edgeType) {
    EdgeType type = schema().edgeType(edgeType).orElseThrow(() -> new IllegalArgumentException(edgeType));
    return new EdgesTable(type);
  }

  public NodesTable nodesTable(String nodeType) {
    NodeType type = schema().nodeType(nodeType).orElseThrow(() -> new IllegalArgumentException(nodeType));
    return new NodesTable(type);
  }

  public OutboxTable outboxTable() {
    return OutboxTable.INSTANCE;
  }

  /** Every row of an edge table on every shard, tombstones included. */
  public Map<Key, EdgeRow> edges(String edgeType) throws Exception {
    EdgesTable table = edgesTable(edgeType);
    Map<Key, EdgeRow> rows = new HashMap<>();
    forEachShard((connection, shard) -> {
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery(table.selectAllSql(shard))) {
        while (result.next()) {
          rows.put(new Key(result.getLong("from_id"), result.getLong("to_id")), new EdgeRow(result.getLong("sequence"),
              result.getInt("state"), result.getString("data"), result.getLong("updated_us")));
        }
      }
    });
    return rows;
  }

  /** The targets of the active edges from {@code from}, in list order (newest sequence first), read from the rows. */
  public List<Long> activeTargets(String edgeType, NodeId from) throws Exception {
    return edges(edgeType).entrySet().stream()
        .filter(row -> row.getKey().from() == from.value() && row.getValue().active())
        .sorted(java.util.Comparator.<Map.Entry<Key, EdgeRow>>comparingLong(row -> row.getValue().sequence())
            .thenComparingLong(row -> row.getKey().to()).reversed())
        .map(row -> row.getKey().to())
        .toList();
  }

  /** Every row of an edge table keyed as its mirror would be: what the inverse table must hold. */
  public Map<Key, EdgeRow> mirrored(String edgeType) throws Exception {
    Map<Key, EdgeRow> mirrored = new HashMap<>();
    edges(edgeType).forEach((key, row) -> mirrored.put(key.mirror(), row));
    return mirrored;
  }

  /**
   * The edges from {@code froms} whose inverse copy is missing or differs, described: empty when
   * every copy matches its forward row (state, sequence, data and write time).
   */
  public List<String> inverseDifferences(String edgeType, String inverseType, Set<Long> froms)
      throws Exception {
    Map<Key, EdgeRow> inverse = edges(inverseType);
    List<String> differences = new ArrayList<>();
    edges(edgeType).forEach((key, row) -> {
      if (froms.contains(key.from()) && row.live()) {
        EdgeRow mirror = inverse.get(key.mirror());
        if (mirror == null || !mirror.sameAs(row)) {
          differences.add(edgeType + " " + key.from() + " -> " + key.to() + ": " + row + ", inverse " + mirror);
        }
      }
    });
    return differences;
  }

  /** Live rows (active or archived) of an edge type from {@code froms}. */
  public long liveRowsFrom(String edgeType, Set<Long> froms) throws Exception {
    return edges(edgeType).entrySet().stream()
        .filter(entry -> froms.contains(entry.getKey().from()) && entry.getValue().live())
        .count();
  }

  /** Rows of a table on every shard. */
  public long rows(ShardTable table) throws Exception {
    long[] total = {0};
    forEachShard((connection, shard) -> {
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM " + table.on(shard))) {
        result.next();
        total[0] += result.getLong(1);
      }
    });
    return total[0];
  }

  /** Changes logged on every shard that no sequencer has numbered yet: a consumer cannot read them. */
  public long unnumberedChanges() throws Exception {
    long[] total = {0};
    forEachShard((connection, shard) -> {
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery("SELECT COUNT(*) FROM " + ChangesTable.INSTANCE.on(shard)
              + " WHERE pos IS NULL")) {
        result.next();
        total[0] += result.getLong(1);
      }
    });
    return total[0];
  }

  /** A node's data exactly as stored, or null. */
  public String storedData(String nodeType, NodeId id) throws Exception {
    try (Connection connection = connect(hostIndexOf(id.shard()));
        PreparedStatement statement = connection.prepareStatement(nodesTable(nodeType).storedDataSql(id.shard()))) {
      statement.setLong(1, id.local());
      try (ResultSet result = statement.executeQuery()) {
        return result.next() ? result.getString(1) : null;
      }
    }
  }

  /** Outbox entries on every shard: pending ones, or parked ones. */
  public long outboxEntries(boolean parked) throws Exception {
    long[] total = {0};
    forEachShard((connection, shard) -> {
      try (PreparedStatement statement = connection.prepareStatement(OutboxTable.INSTANCE.countSql(shard))) {
        statement.setInt(1, parked ? 1 : 0);
        try (ResultSet result = statement.executeQuery()) {
          result.next();
          total[0] += result.getLong(1);
        }
      }
    });
    return total[0];
  }

  /**
   * Every outbox entry still there, one line each — shard, id, kind, attempts, due in how many ms,
   * parked, last error — for a failure message that says why work did not drain.
   */
  public List<String> describeOutboxes() throws Exception {
    List<String> lines = new ArrayList<>();
    long nowUs = System.currentTimeMillis() * 1000;
    forEachShard((connection, shard) -> {
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery("SELECT id, kind, attempts, next_attempt_us, parked, last_error FROM "
              + OutboxTable.INSTANCE.on(shard) + " ORDER BY id")) {
        while (result.next()) {
          lines.add("shard " + shard + " entry " + result.getLong(1) + " kind " + result.getInt(2) + ", "
              + result.getInt(3) + " attempts, due in " + (result.getLong(4) - nowUs) / 1000 + " ms"
              + (result.getInt(5) == 1 ? ", parked" : "") + ", last error: " + result.getString(6));
        }
      }
    });
    return lines;
  }

  /** The five largest groups of pending entries by shard, kind, edge type and FROM node, with an error of each. */
  private List<String> largestOutboxGroups() throws Exception {
    record Group(long entries, String text) {}
    List<Group> groups = new ArrayList<>();
    forEachShard((connection, shard) -> {
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery("SELECT kind, edge_type, from_id, COUNT(*), MAX(attempts),"
              + " MAX(last_error) FROM " + OutboxTable.INSTANCE.on(shard) + " WHERE parked = 0"
              + " GROUP BY kind, edge_type, from_id ORDER BY COUNT(*) DESC LIMIT 5")) {
        while (result.next()) {
          groups.add(new Group(result.getLong(4), result.getLong(4) + " on shard " + shard + " (kind " + result.getInt(1)
              + ", edge type " + result.getInt(2) + ", from " + result.getLong(3) + ", up to " + result.getInt(5)
              + " attempts, error: " + result.getString(6) + ")"));
        }
      }
    });
    return groups.stream().sorted(java.util.Comparator.comparingLong(Group::entries).reversed()).limit(5)
        .map(Group::text).toList();
  }

  /** Appends an inverse-edge entry to a shard's outbox behind the store's back, as a write would. */
  public void appendInverseEntry(int shard, int edgeTypeId, NodeId from, NodeId to) throws Exception {
    appendInverseEntry(shard, edgeTypeId, from, to, false);
  }

  /**
   * Appends an inverse-edge entry; a held-back one is not due until the test lets it go (it
   * commits already held back, so no drainer can take it first).
   */
  public void appendInverseEntry(int shard, int edgeTypeId, NodeId from, NodeId to, boolean heldBack)
      throws Exception {
    long now = System.currentTimeMillis() * 1000;
    append(shard, new Object[] {OutboxOp.Kind.INVERSE_EDGE.code(), edgeTypeId, from.value(), to.value(),
        EdgeRow.ACTIVE, now, null, now, now}, heldBack ? HELD_BACK_US : null);
  }

  /** Appends a node's cascade, as archiveEdgesOf, restoreEdgesOf or a deletion would, due at {@code dueUs}. */
  public void appendCascadeEntry(int shard, OutboxOp.Kind kind, NodeId node, long dueUs) throws Exception {
    append(shard, new Object[] {kind.code(), 0, node.value(), node.value(), 0, 0L, null, 0L,
        System.currentTimeMillis() * 1000}, dueUs);
  }

  /** One entry in {@link OutboxTable#appendSql}'s order, due at once or at {@code dueUs} (set as it commits). */
  private void append(int shard, Object[] values, Long dueUs) throws Exception {
    try (Connection connection = connect(hostIndexOf(shard));
        PreparedStatement statement = connection.prepareStatement(OutboxTable.INSTANCE.appendSql(shard))) {
      connection.setAutoCommit(false);
      for (int i = 0; i < values.length; i++) {
        statement.setObject(i + 1, values[i]);
      }
      statement.executeUpdate();
      if (dueUs != null) {
        try (PreparedStatement due = connection.prepareStatement("UPDATE " + OutboxTable.INSTANCE.on(shard)
            + " SET next_attempt_us = ? WHERE id = LAST_INSERT_ID()")) {
          due.setLong(1, dueUs);
          due.executeUpdate();
        }
      }
      connection.commit();
    }
  }

  /**
   * Makes the held-back entries of {@code shards}, all on one host, due at once: one transaction,
   * so a drainer's pass finds all of them or none.
   */
  public void releaseHeldBackTogether(List<Integer> shards) throws Exception {
    try (Connection connection = connect(hostIndexOf(shards.get(0))); Statement statement = connection.createStatement()) {
      connection.setAutoCommit(false);
      for (int shard : shards) {
        statement.executeUpdate("UPDATE " + OutboxTable.INSTANCE.on(shard) + " SET next_attempt_us = 0"
            + " WHERE next_attempt_us = " + HELD_BACK_US);
      }
      connection.commit();
    }
  }

  /** Parks a shard's held-back entries, as repeated failures would have. */
  public void parkHeldBack(int shard) throws Exception {
    execute(shard, "UPDATE " + OutboxTable.INSTANCE.on(shard) + " SET parked = 1 WHERE next_attempt_us = "
        + HELD_BACK_US);
  }

  /** The kind ({@code OutboxOp.Kind}'s name) of the outbox entry on {@code shard} from node {@code fromId}. */
  public String outboxKindOf(int shard, long fromId) throws Exception {
    try (Connection connection = connect(hostIndexOf(shard));
        PreparedStatement statement = connection.prepareStatement(
            "SELECT kind FROM " + OutboxTable.INSTANCE.on(shard) + " WHERE from_id = ?")) {
      statement.setLong(1, fromId);
      try (ResultSet result = statement.executeQuery()) {
        if (!result.next()) {
          throw new IllegalStateException("no outbox entry from " + fromId + " on shard " + shard);
        }
        return OutboxOp.Kind.of(result.getInt(1)).name();
      }
    }
  }

  /** A shard's outbox entries for edges from {@code from}: pending ones, or parked ones. */
  public long outboxEntriesFrom(int shard, NodeId from, boolean parked) throws Exception {
    try (Connection connection = connect(hostIndexOf(shard));
        PreparedStatement statement = connection.prepareStatement(
            OutboxTable.INSTANCE.countSql(shard) + " AND from_id = ?")) {
      statement.setInt(1, parked ? 1 : 0);
      statement.setLong(2, from.value());
      try (ResultSet result = statement.executeQuery()) {
        result.next();
        return result.getLong(1);
      }
    }
  }

  /** Waits until every outbox is empty; fails after the timeout. */
  public void awaitOutboxesDrained(Duration timeout) throws Exception {
    long deadline = System.nanoTime() + timeout.toNanos();
    while (outboxEntries(false) > 0) {
      if (System.nanoTime() > deadline) {
        throw new AssertionError(outboxEntries(false) + " outbox entries still pending after " + timeout
            + "; the most entries by (shard, kind, edge type, from): " + largestOutboxGroups());
      }
      Thread.sleep(50);
    }
  }

  /** For every FROM node with a count row or active edges: (stored count, active rows). */
  public Map<Long, long[]> countsAgainstRows(String edgeType) throws Exception {
    return countsAgainstRows(List.of(edgesTable(edgeType))).get(edgeType);
  }

  /**
   * For each edge type, every FROM node with a count row or active edges: (stored count, active
   * rows). One connection per host; each shard's counts and rows are read from one consistent
   * snapshot, so a write committing meanwhile cannot look like a drift.
   */
  public Map<String, Map<Long, long[]>> countsAgainstRows(List<EdgesTable> tables) throws Exception {
    Map<String, Map<Long, long[]>> byType = new HashMap<>();
    tables.forEach(table -> byType.put(table.type().name(), new HashMap<>()));
    forEachShard((connection, shard) -> {
      connection.setTransactionIsolation(Connection.TRANSACTION_REPEATABLE_READ);
      connection.setAutoCommit(false);
      try (Statement statement = connection.createStatement()) {
        statement.execute("START TRANSACTION WITH CONSISTENT SNAPSHOT");
        for (EdgesTable table : tables) {
          Map<Long, long[]> counts = byType.get(table.type().name());
          try (PreparedStatement select = connection.prepareStatement(CountsTable.INSTANCE.countsOfTypeSql(shard))) {
            select.setInt(1, table.type().id());
            try (ResultSet result = select.executeQuery()) {
              while (result.next()) {
                counts.computeIfAbsent(result.getLong(1), k -> new long[2])[0] = result.getLong(2);
              }
            }
          }
          try (ResultSet result = statement.executeQuery(table.activeCountsSql(shard))) {
            while (result.next()) {
              counts.computeIfAbsent(result.getLong(1), k -> new long[2])[1] = result.getLong(2);
            }
          }
        }
      } finally {
        connection.commit();
        connection.setAutoCommit(true);
      }
    });
    return byType;
  }

  /**
   * Turns an active edge copy into a tombstone {@code laterByUs} newer than it, with its count,
   * without telling anyone: a removal that reached this copy and never its mirror.
   */
  public void removeBehindTheStoresBack(String edgeType, NodeId from, NodeId to, long laterByUs) throws Exception {
    EdgesTable table = edgesTable(edgeType);
    execute(from.shard(), "UPDATE " + table.on(from.shard()) + " SET state = " + EdgeRow.DELETED
        + ", updated_us = updated_us + " + laterByUs + " WHERE from_id = " + from.value() + " AND to_id = " + to.value()
        + " AND state = " + EdgeRow.ACTIVE);
    execute(from.shard(), "UPDATE " + CountsTable.INSTANCE.on(from.shard()) + " SET count = count - 1"
        + " WHERE from_id = " + from.value() + " AND edge_type = " + table.type().id());
  }

  /** A unique field's claims on every shard, value to the node each names: the index as stored. */
  public Map<String, Long> uniqueClaims(String nodeType, String field) throws Exception {
    UniqueTable table = new UniqueTable(schema().nodeType(nodeType).orElseThrow(), field);
    Map<String, Long> claims = new java.util.TreeMap<>();
    forEachShard((connection, shard) -> {
      try (Statement statement = connection.createStatement();
          ResultSet result = statement.executeQuery("SELECT value_key, node_id FROM " + table.on(shard))) {
        while (result.next()) {
          claims.put(result.getString(1), result.getLong(2));
        }
      }
    });
    return claims;
  }

  /**
   * Writes a claim behind the store's back, on the value's home shard, made {@code agoUs} ago:
   * what a write that crashed between claiming and committing leaves.
   */
  public void putClaim(String nodeType, String field, String key, long nodeId, long agoUs) throws Exception {
    Home home = home(nodeType, field, key);
    try (Connection connection = connect(hostIndexOf(home.shard()));
        PreparedStatement statement = connection.prepareStatement("REPLACE INTO " + home.table()
            + " (value_hash, value_key, node_id, node_version, claimed_us) VALUES (?, ?, ?, 1, ?)")) {
      statement.setBytes(1, home.hash());
      statement.setString(2, key);
      statement.setLong(3, nodeId);
      statement.setLong(4, System.currentTimeMillis() * 1000 - agoUs);
      statement.executeUpdate();
    }
  }

  /** Deletes a value's claim behind the store's back: a claim lost. */
  public void dropClaim(String nodeType, String field, String key) throws Exception {
    Home home = home(nodeType, field, key);
    try (Connection connection = connect(hostIndexOf(home.shard()));
        PreparedStatement statement = connection.prepareStatement("DELETE FROM " + home.table()
            + " WHERE value_hash = ?")) {
      statement.setBytes(1, home.hash());
      statement.executeUpdate();
    }
  }

  /** Where a unique value's claim lives: its hash, its home shard and the lookup table there. */
  private record Home(byte[] hash, int shard, String table) {}

  private Home home(String nodeType, String field, String key) {
    var type = schema().nodeType(nodeType).orElseThrow();
    byte[] hash = io.quiver.schema.UniqueIndex.hash(key);
    int shard = type.fields().definitions().get(field).unique().homeShard(hash);
    return new Home(hash, shard, new UniqueTable(type, field).on(shard));
  }

  /** Transactions committed on the host of a shard since it started (MariaDB's {@code Com_commit}). */
  public long commitsOnHostOf(int shard) throws Exception {
    return globalStatusOnHostOf(shard, "Com_commit");
  }

  /**
   * The transactions the host of {@code shard} has written to its binary log since it started
   * (MariaDB's {@code Binlog_commits}): every transaction that wrote, a statement committed on its
   * own (autocommit) as well as one ended by COMMIT, which {@link #commitsOnHostOf} alone counts.
   */
  public long writtenTransactionsOnHostOf(int shard) throws Exception {
    return globalStatusOnHostOf(shard, "Binlog_commits");
  }

  private long globalStatusOnHostOf(int shard, String counter) throws Exception {
    try (Connection connection = connect(hostIndexOf(shard)); Statement statement = connection.createStatement();
        ResultSet result = statement.executeQuery("SHOW GLOBAL STATUS LIKE '" + counter + "'")) {
      if (!result.next()) {
        throw new IllegalStateException("the host of shard " + shard + " keeps no status counter " + counter);
      }
      return result.getLong(2);
    }
  }

  /** Runs one statement on the host of a shard. */
  public void execute(int shard, String sql) throws Exception {
    try (Connection connection = connect(hostIndexOf(shard)); Statement statement = connection.createStatement()) {
      statement.execute(sql);
    }
  }

  private interface PerShard {
    void run(Connection connection, int shard) throws Exception;
  }

  private void forEachShard(PerShard work) throws Exception {
    ShardMap map = backend.shardMap();
    List<String> hosts = List.of("h1", "h2");
    for (int host = 0; host < hosts.size(); host++) {
      try (Connection connection = connect(host)) {
        for (int shard : map.shardsOn(hosts.get(host))) {
          work.run(connection, shard);
        }
      }
    }
  }

  private int hostIndexOf(int shard) {
    return backend.shardMap().rangeOf(shard).orElseThrow().host().equals("h1") ? 0 : 1;
  }

  private Connection connect(int host) throws Exception {
    return backend.connect(backend.hosts().addresses().get(host));
  }
}
