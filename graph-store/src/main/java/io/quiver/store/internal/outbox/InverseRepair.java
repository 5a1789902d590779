package io.quiver.store.internal.outbox;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.EdgeType;
import io.quiver.schema.Schema;
import io.quiver.schema.SchemaSource;
import io.quiver.store.NodeId;
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
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
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
 * and left for the entry, never "fixed" against it. With the change log written from the binary
 * log, a forward copy's inverse waits there before any outbox: a pair that differs with no entry
 * is checked again once both copies' hosts' tailers have passed what those hosts had committed
 * ({@link TailBarrier}), and is in flight if either copy changed meanwhile or an entry now holds it
 * (one the tailer could not write); only a pair that stayed as it was is damage.
 *
 * <p>Reactive: a chain of batches, each checked pair by pair in order, on the background pools —
 * one shard's scan at a time, so a repair never takes more than a few connections from the drainer.
 */
public final class InverseRepair {
  private static final int BATCH = 500;

  private final ShardRouter router;
  private final ShardClient client;
  private final SchemaSource schemas;
  private final InverseWriter writer;
  /** Waits for a host's tailer; null when the change log is not written from the binary log. */
  private final TailBarrier tails;

  /** @param tails what waits for a host's tailer, when the change log is written from the binary log; else null */
  public InverseRepair(ShardRouter router, ShardClient client, SchemaSource schemas, InverseWriter writer,
      TailBarrier tails) {
    this.router = router;
    this.client = client;
    this.schemas = schemas;
    this.writer = writer;
    this.tails = tails;
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

  public Future<RepairReport> run(String edgeTypeName, Consumer<String> progress) {
    return Futures.attempt(() -> pair(edgeTypeName)).compose(pair -> {
      Tally tally = new Tally();
      EdgeType type = pair.get(0);
      EdgeType inverse = pair.get(1);
      return scan(type, inverse, Side.FORWARD, tally, progress)
          .compose(forward -> type.symmetric() ? Future.succeededFuture()
              : scan(inverse, type, Side.INVERSE, tally, progress))
          .map(scanned -> report(edgeTypeName, tally, progress));
    });
  }

  /** The edge type and its inverse, both defined. */
  private List<EdgeType> pair(String edgeTypeName) {
    Schema schema = schemas.current();
    EdgeType type = TypeChecks.edgeType(schema, edgeTypeName);
    if (type.inverse() == null) {
      throw GraphException.invalid("edge type '" + edgeTypeName + "' has no inverse to repair");
    }
    EdgeType inverse = schema.inverseOf(type).orElseThrow(() -> GraphException.invalid(
        "the inverse '" + type.inverse() + "' of '" + edgeTypeName + "' is not defined yet"));
    return List.of(type, inverse);
  }

  private static RepairReport report(String edgeTypeName, Tally tally, Consumer<String> progress) {
    RepairReport report = new RepairReport(edgeTypeName, tally.scanned, tally.missing, tally.differing,
        tally.orphaned, tally.inFlight, tally.fixed);
    progress.accept(String.format("done: %d rows scanned, %d missing, %d differing, %d orphaned, %d in flight,"
        + " %d fixed", report.scanned(), report.missingInverse(), report.differing(), report.orphanedInverse(),
        report.inFlight(), report.fixed()));
    return report;
  }

  /** Every row of {@code table}'s type, each checked against its mirror in {@code mirror}'s type. */
  private Future<Void> scan(EdgeType table, EdgeType mirror, Side side, Tally tally, Consumer<String> progress) {
    return Futures.forEach(router.shardMap().allShards(), shard -> scanShard(table, mirror, side, shard, tally)
        .map(scanned -> {
          progress.accept(String.format("%s shard %d: %d rows scanned; so far %d missing, %d differing, %d orphaned,"
                  + " %d in flight, %d fixed", table.name(), shard, scanned, tally.missing, tally.differing,
              tally.orphaned, tally.inFlight, tally.fixed));
          return scanned;
        }));
  }

  /** One shard's rows of {@code table}, page after page in primary-key order; answers how many. */
  private Future<Long> scanShard(EdgeType table, EdgeType mirror, Side side, int shard, Tally tally) {
    EdgesTable rows = new EdgesTable(table);
    EdgesTable mirrors = new EdgesTable(mirror);
    long before = tally.scanned;
    long[] after = {0, 0};
    return Futures.started(() -> {
      ShardRoute route = router.route(shard, Access.READ);
      return Futures.repeat(() -> client.read(route, sql -> rows.scan(sql, route, after[0], after[1], BATCH))
          .compose(page -> page.isEmpty() ? Future.succeededFuture(false)
              : mirrorsOf(page, mirrors)
                  .compose(found -> {
                    // One wait per host and page: every pair of the page was read before the first.
                    Map<String, Future<Void>> tailsPassed = new HashMap<>();
                    return Futures.forEach(page, stored -> check(stored,
                        found.get(List.of(stored.to().value(), stored.from().value())), table, mirror, side, tally,
                        tailsPassed));
                  })
                  .map(checked -> {
                    tally.scanned += page.size();
                    Stored last = page.get(page.size() - 1);
                    after[0] = last.from().value();
                    after[1] = last.to().value();
                    return true;
                  })));
    }).map(scanned -> tally.scanned - before);
  }

  /**
   * A pair is damaged only where a reader can tell its copies apart ({@link EdgeRow#readsAs}): a
   * live copy (active or archived) whose mirror is missing or differs. Two dead copies read alike
   * however their tombstones were stamped (a cascade's tombstone and a placeholder an older
   * build's lock left, say), so they are neither counted nor rewritten.
   */
  private Future<Void> check(Stored stored, EdgeRow mirror, EdgeType table, EdgeType mirrorType, Side side,
      Tally tally, Map<String, Future<Void>> tailsPassed) {
    EdgeRow held = EdgeRow.orAbsent(mirror);
    if (stored.row().readsAs(held)) {
      return Future.succeededFuture();
    }
    return inFlight(stored, table, mirrorType)
        .compose(pending -> pending || tails == null ? Future.succeededFuture(pending)
            : inFlightThroughTails(stored, mirror, table, mirrorType, tailsPassed))
        .compose(inFlight -> {
          if (inFlight) {
            // A pair with both copies was already met from the forward side: count it once.
            if (side == Side.FORWARD || mirror == null) {
              tally.inFlight++;
            }
            return Future.succeededFuture();
          }
          return damaged(stored, mirror, held, table, mirrorType, side, tally);
        });
  }

  private Future<Void> damaged(Stored stored, EdgeRow mirror, EdgeRow held, EdgeType table, EdgeType mirrorType,
      Side side, Tally tally) {
    if (mirror == null) {
      if (side == Side.FORWARD) {
        tally.missing++;
      } else {
        tally.orphaned++;
      }
    } else {
      tally.differing++;
    }
    return stored.row().outranks(held)
        ? fix(new InverseOp(mirrorType.id(), stored.to(), stored.from(), stored.row()), tally)
        : fix(new InverseOp(table.id(), stored.from(), stored.to(), mirror), tally);
  }

  /**
   * Whether a pair that differs with no entry pending was still on its way through a tail: once
   * the tailers of both copies' hosts have passed what their hosts had committed, either copy
   * reads otherwise than it did (a write since, or the tailer's inverse), or an entry now holds it.
   * A host's wait, once passed for a page ({@code tailsPassed}), covers every pair of that page.
   */
  private Future<Boolean> inFlightThroughTails(Stored stored, EdgeRow mirror, EdgeType table, EdgeType mirrorType,
      Map<String, Future<Void>> tailsPassed) {
    Set<String> hosts = new LinkedHashSet<>();
    for (int shard : List.of(stored.from().shard(), stored.to().shard())) {
      router.shardMap().rangeOf(shard).ifPresent(range -> hosts.add(range.host()));
    }
    return Futures.forEach(hosts, host -> tailsPassed.computeIfAbsent(host, tails::passed))
        .compose(passed -> Future.all(copy(table, stored.from(), stored.to()), copy(mirrorType, stored.to(),
            stored.from())))
        .compose(now -> !stored.row().equals(now.resultAt(0)) || !Objects.equals(mirror, now.resultAt(1))
            ? Future.succeededFuture(true) : inFlight(stored, table, mirrorType));
  }

  /** The copy (from, to) of {@code type} as its shard's primary holds it now; null when there is none. */
  private Future<EdgeRow> copy(EdgeType type, NodeId from, NodeId to) {
    return Futures.started(() -> {
      ShardRoute route = router.route(from.shard(), Access.READ);
      return client.read(route, sql -> new EdgesTable(type).get(sql, route, from.value(), to.value()));
    });
  }

  /**
   * Whether an entry still to be applied will write either copy of the pair: the mirror's, from
   * the stored copy's shard, or the stored copy, from the mirror's shard.
   */
  private Future<Boolean> inFlight(Stored stored, EdgeType table, EdgeType mirrorType) {
    return pendingOn(stored.from().shard(), mirrorType, stored.to().value(), stored.from().value())
        .compose(pending -> pending ? Future.succeededFuture(true)
            : pendingOn(stored.to().shard(), table, stored.from().value(), stored.to().value()));
  }

  private Future<Boolean> pendingOn(int shard, EdgeType copyType, long from, long to) {
    return Futures.started(() -> {
      ShardRoute route = router.route(shard, Access.READ);
      return client.read(route, sql -> OutboxTable.INSTANCE.pendingFor(sql, route,
          OutboxOp.Kind.INVERSE_EDGE.code(), copyType.id(), from, to));
    });
  }

  private Future<Void> fix(InverseOp op, Tally tally) {
    return Futures.started(() -> {
      writer.announceDamaged(op);
      return writer.apply(op);
    }).map(outcome -> {
      if (outcome.changed()) {
        tally.fixed++;
      }
      return null;
    });
  }

  /** The mirror rows of a page, keyed by (from, to), fetched with one query per mirror shard, side by side. */
  private Future<Map<List<Long>, EdgeRow>> mirrorsOf(List<Stored> rows, EdgesTable mirror) {
    Map<Integer, List<Stored>> byShard = new HashMap<>();
    rows.forEach(row -> byShard.computeIfAbsent(row.to().shard(), shard -> new ArrayList<>()).add(row));
    List<Future<List<Stored>>> reads = new ArrayList<>();
    byShard.forEach((shard, onShard) -> reads.add(Futures.started(() -> {
      ShardRoute route = router.route(shard, Access.READ);
      Set<Long> froms = new LinkedHashSet<>();
      Set<Long> tos = new LinkedHashSet<>();
      onShard.forEach(row -> {
        froms.add(row.to().value());
        tos.add(row.from().value());
      });
      return client.read(route, sql -> mirror.among(sql, route, froms, tos));
    })));
    return Future.all(reads).map(all -> {
      Map<List<Long>, EdgeRow> mirrors = new HashMap<>();
      reads.forEach(read -> read.result().forEach(found ->
          mirrors.put(List.of(found.from().value(), found.to().value()), found.row())));
      return mirrors;
    });
  }
}
