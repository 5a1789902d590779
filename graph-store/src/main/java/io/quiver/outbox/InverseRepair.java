package io.quiver.outbox;

import io.quiver.edge.EdgeRow;
import io.quiver.edge.EdgeRows;
import io.quiver.error.GraphException;
import io.quiver.id.NodeId;
import io.quiver.node.TypeChecks;
import io.quiver.schema.EdgeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.sql.Access;
import io.quiver.sql.InLists;
import io.quiver.sql.ShardClient;
import io.quiver.sql.ShardRoute;
import io.quiver.sql.ShardRouter;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * FriendFeed's Cleaner for inverse edges: scans both tables of an edge type's pair, shard by
 * shard in primary-key order, finds copies that are missing or differ, and makes each pair
 * equal by applying the higher-ranked copy to the other ({@link EdgeRow}), exactly as the
 * applier would. Running it while clients write is safe: a fix never overwrites a newer write.
 *
 * <p>Blocking (it awaits each batch): run it on a worker thread or from the command line.
 */
public final class InverseRepair {
  private static final int BATCH = 500;

  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final InverseWriter writer;

  public InverseRepair(ShardRouter router, ShardClient client, SchemaSource schemas, InverseWriter writer) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.writer = writer;
  }

  private enum Side { FORWARD, INVERSE }

  private static final class Tally {
    long scanned;
    long missing;
    long differing;
    long orphaned;
    long fixed;
  }

  public RepairReport run(String edgeTypeName, Consumer<String> progress) {
    Schema schema = schemas.current();
    EdgeType type = TypeChecks.edgeType(schema, edgeTypeName);
    if (type.inverse() == null) {
      throw GraphException.invalid("edge type '" + edgeTypeName + "' has no inverse to repair");
    }
    EdgeType inverse = schema.edgeType(type.inverse()).orElseThrow(() -> GraphException.invalid(
        "the inverse '" + type.inverse() + "' of '" + edgeTypeName + "' is not defined yet"));
    Tally tally = new Tally();
    scan(type, inverse, Side.FORWARD, tally, progress);
    if (!type.symmetric()) {
      scan(inverse, type, Side.INVERSE, tally, progress);
    }
    RepairReport report = new RepairReport(edgeTypeName, tally.scanned, tally.missing, tally.differing,
        tally.orphaned, tally.fixed);
    progress.accept("done: " + report);
    return report;
  }

  private record Stored(NodeId from, NodeId to, EdgeRow row) {}

  /** Every row of {@code table}'s type, each checked against its mirror in {@code mirror}'s type. */
  private void scan(EdgeType table, EdgeType mirror, Side side, Tally tally, Consumer<String> progress) {
    for (int shard : router.shardMap().allShards()) {
      ShardRoute route = router.route(shard, Access.READ);
      long fromAfter = 0;
      long toAfter = 0;
      long before = tally.scanned;
      while (true) {
        List<Stored> rows = page(route, table, fromAfter, toAfter);
        if (rows.isEmpty()) {
          break;
        }
        Map<List<Long>, EdgeRow> mirrors = mirrorsOf(rows, mirror);
        for (Stored stored : rows) {
          check(stored, mirrors.get(List.of(stored.to().value(), stored.from().value())), table, mirror, side, tally);
        }
        tally.scanned += rows.size();
        Stored last = rows.get(rows.size() - 1);
        fromAfter = last.from().value();
        toAfter = last.to().value();
      }
      progress.accept(String.format("%s shard %d: %d rows scanned; so far %d missing, %d differing, %d orphaned, %d fixed",
          table.name(), shard, tally.scanned - before, tally.missing, tally.differing, tally.orphaned, tally.fixed));
    }
  }

  private void check(Stored stored, EdgeRow mirror, EdgeType table, EdgeType mirrorType, Side side, Tally tally) {
    if (mirror == null) {
      if (stored.row().active()) {
        if (side == Side.FORWARD) {
          tally.missing++;
        } else {
          tally.orphaned++;
        }
        fix(new InverseOp(mirrorType.id(), stored.to(), stored.from(), stored.row()), tally);
      }
      return;
    }
    if (stored.row().sameAs(mirror)) {
      return;
    }
    tally.differing++;
    if (stored.row().outranks(mirror)) {
      fix(new InverseOp(mirrorType.id(), stored.to(), stored.from(), stored.row()), tally);
    } else {
      fix(new InverseOp(table.id(), stored.from(), stored.to(), mirror), tally);
    }
  }

  private void fix(InverseOp op, Tally tally) {
    if (writer.apply(op).await()) {
      tally.fixed++;
    }
  }

  private List<Stored> page(ShardRoute route, EdgeType type, long fromAfter, long toAfter) {
    String sql = "SELECT from_id, to_id, sequence, state, data, updated_us FROM " + route.table(type.tableName())
        + " WHERE from_id > ? OR (from_id = ? AND to_id > ?) ORDER BY from_id, to_id LIMIT " + BATCH;
    List<Stored> rows = new ArrayList<>();
    for (Row row : client.query(route, sql, Tuple.of(fromAfter, fromAfter, toAfter)).await()) {
      rows.add(new Stored(new NodeId(row.getLong("from_id")), new NodeId(row.getLong("to_id")), EdgeRows.read(row)));
    }
    return rows;
  }

  /** The mirror rows of a page, keyed by (from, to), fetched with one query per mirror shard. */
  private Map<List<Long>, EdgeRow> mirrorsOf(List<Stored> rows, EdgeType mirror) {
    Map<Integer, List<Stored>> byShard = new HashMap<>();
    rows.forEach(row -> byShard.computeIfAbsent(row.to().shard(), shard -> new ArrayList<>()).add(row));
    Map<List<Long>, EdgeRow> mirrors = new HashMap<>();
    byShard.forEach((shard, onShard) -> {
      ShardRoute route = router.route(shard, Access.READ);
      Set<Long> froms = new LinkedHashSet<>();
      Set<Long> tos = new LinkedHashSet<>();
      onShard.forEach(row -> {
        froms.add(row.to().value());
        tos.add(row.from().value());
      });
      List<Object> arguments = new ArrayList<>();
      String sql = "SELECT from_id, to_id, sequence, state, data, updated_us FROM " + route.table(mirror.tableName())
          + " WHERE from_id IN (" + InLists.pad(List.copyOf(froms), arguments) + ") AND to_id IN ("
          + InLists.pad(List.copyOf(tos), arguments) + ")";
      for (Row row : client.query(route, sql, Tuple.wrap(arguments)).await()) {
        mirrors.put(List.of(row.getLong("from_id"), row.getLong("to_id")), EdgeRows.read(row));
      }
    });
    return mirrors;
  }
}
