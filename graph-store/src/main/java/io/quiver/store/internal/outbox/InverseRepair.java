package io.quiver.store.internal.outbox;

import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.RepairReport;
import io.quiver.store.internal.TypeChecks;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable.Stored;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.internal.table.OutboxTable;
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
 * <p>A pair whose copies differ while an outbox entry that will write one of them is pending
 * (on either copy's shard) is work in flight, not damage: it is counted apart ({@code inFlight})
 * and left for the entry, never "fixed" against it.
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
    long inFlight;
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
        tally.orphaned, tally.inFlight, tally.fixed);
    progress.accept(String.format("done: %d rows scanned, %d missing, %d differing, %d orphaned, %d in flight,"
        + " %d fixed", report.scanned(), report.missingInverse(), report.differing(), report.orphanedInverse(),
        report.inFlight(), report.fixed()));
    return report;
  }

  /** Every row of {@code table}'s type, each checked against its mirror in {@code mirror}'s type. */
  private void scan(EdgeType table, EdgeType mirror, Side side, Tally tally, Consumer<String> progress) {
    EdgesTable rows = new EdgesTable(table);
    for (int shard : router.shardMap().allShards()) {
      ShardRoute route = router.route(shard, Access.READ);
      long fromAfter = 0;
      long toAfter = 0;
      long before = tally.scanned;
      while (true) {
        long from = fromAfter;
        long to = toAfter;
        List<Stored> page = client.read(route, sql -> rows.scan(sql, route, from, to, BATCH)).await();
        if (page.isEmpty()) {
          break;
        }
        Map<List<Long>, EdgeRow> mirrors = mirrorsOf(page, new EdgesTable(mirror));
        for (Stored stored : page) {
          check(stored, mirrors.get(List.of(stored.to().value(), stored.from().value())), table, mirror, side, tally);
        }
        tally.scanned += page.size();
        Stored last = page.get(page.size() - 1);
        fromAfter = last.from().value();
        toAfter = last.to().value();
      }
      progress.accept(String.format("%s shard %d: %d rows scanned; so far %d missing, %d differing, %d orphaned,"
              + " %d in flight, %d fixed", table.name(), shard, tally.scanned - before, tally.missing, tally.differing,
          tally.orphaned, tally.inFlight, tally.fixed));
    }
  }

  /**
   * A pair is damaged only where a reader can tell its copies apart ({@link EdgeRow#readsAs}): a
   * live copy (active or archived) whose mirror is missing or differs. Two dead copies read alike
   * however their tombstones were stamped (a cascade's tombstone and the placeholder a lock left,
   * say), so they are neither counted nor rewritten.
   */
  private void check(Stored stored, EdgeRow mirror, EdgeType table, EdgeType mirrorType, Side side, Tally tally) {
    EdgeRow held = mirror == null ? EdgeRow.ABSENT : mirror;
    if (stored.row().readsAs(held)) {
      return;
    }
    if (inFlight(stored, table, mirrorType)) {
      // A pair with both copies was already met from the forward side: count it once.
      if (side == Side.FORWARD || mirror == null) {
        tally.inFlight++;
      }
      return;
    }
    if (mirror == null) {
      if (side == Side.FORWARD) {
        tally.missing++;
      } else {
        tally.orphaned++;
      }
    } else {
      tally.differing++;
    }
    if (stored.row().outranks(held)) {
      fix(new InverseOp(mirrorType.id(), stored.to(), stored.from(), stored.row()), tally);
    } else {
      fix(new InverseOp(table.id(), stored.from(), stored.to(), mirror), tally);
    }
  }

  /**
   * Whether an entry still to be applied will write either copy of the pair: the mirror's, from
   * the stored copy's shard, or the stored copy, from the mirror's shard.
   */
  private boolean inFlight(Stored stored, EdgeType table, EdgeType mirrorType) {
    return pendingOn(stored.from().shard(), mirrorType, stored.to().value(), stored.from().value())
        || pendingOn(stored.to().shard(), table, stored.from().value(), stored.to().value());
  }

  private boolean pendingOn(int shard, EdgeType copyType, long from, long to) {
    ShardRoute route = router.route(shard, Access.READ);
    return client.read(route, sql -> OutboxTable.INSTANCE.pendingFor(sql, route,
        OutboxOp.Kind.INVERSE_EDGE.code(), copyType.id(), from, to)).await();
  }

  private void fix(InverseOp op, Tally tally) {
    writer.announceDamaged(op);
    if (writer.apply(op).await().changed()) {
      tally.fixed++;
    }
  }

  /** The mirror rows of a page, keyed by (from, to), fetched with one query per mirror shard. */
  private Map<List<Long>, EdgeRow> mirrorsOf(List<Stored> rows, EdgesTable mirror) {
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
      for (Stored found : client.read(route, sql -> mirror.among(sql, route, froms, tos)).await()) {
        mirrors.put(List.of(found.from().value(), found.to().value()), found.row());
      }
    });
    return mirrors;
  }
}
