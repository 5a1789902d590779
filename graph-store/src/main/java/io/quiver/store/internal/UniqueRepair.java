package io.quiver.store.internal;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.schema.FieldDef;
import io.quiver.schema.NodeType;
import io.quiver.schema.Schema;
import io.quiver.schema.UniqueIndex;
import io.quiver.store.UniqueRepairReport;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.NodesTable.StoredNode;
import io.quiver.store.internal.table.NodesTable;
import io.quiver.store.internal.table.UniqueTable.Claim;
import io.quiver.store.internal.table.UniqueTable;
import io.vertx.core.Future;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Consumer;

/**
 * FriendFeed's Cleaner for a unique field's index, and the build of a newly declared one (the same
 * scan). Two passes:
 * <ol>
 *   <li><b>Nodes to claims.</b> Every stored node of the type, shard by shard in ID order: a value
 *       it holds without a claim is claimed for it, a claim older than the lease whose node no
 *       longer holds the value is taken over, and a value another node holds too is a duplicate.
 *   <li><b>Claims to nodes.</b> Every claim on the index's home shards, in key order: one whose node
 *       does not hold its value (deleted, changed, never committed) and older than the lease is
 *       removed; a younger one is a write in flight and left.
 * </ol>
 * Writes may run meanwhile: every fix is a compare-and-set on the claim as read, and nothing
 * younger than the lease is touched. Reactive: page after page, the checks of one page side by side.
 */
final class UniqueRepair {
  private static final int PAGE = 500;
  private static final int MAX_DUPLICATES = 1000;

  private final ShardRouter router;
  private final ShardClient client;
  private final UniqueClaims claims;

  UniqueRepair(ShardRouter router, ShardClient client, UniqueClaims claims) {
    this.router = router;
    this.client = client;
    this.claims = claims;
  }

  private static final class Tally {
    long nodes;
    long claims;
    long restored;
    long removed;
    long inFlight;
    final Map<String, TreeSet<String>> duplicates = new TreeMap<>();
  }

  /** Scans the field's index under {@code schema}, which must hold it (building or active). */
  Future<UniqueRepairReport> run(Schema schema, String typeName, String field, Consumer<String> progress) {
    return Futures.attempt(() -> {
      NodeType type = TypeChecks.nodeType(schema, typeName);
      FieldDef def = type.fields().definitions().get(field);
      if (def == null || def.unique() == null || def.unique().declared()) {
        throw GraphException.invalid("field '" + field + "' of node type '" + typeName + "' is not unique");
      }
      return type;
    }).compose(type -> {
      FieldDef def = type.fields().definitions().get(field);
      Tally tally = new Tally();
      List<Integer> homes = java.util.stream.IntStream.range(0, def.unique().shards()).boxed().toList();
      return Futures.forEach(router.shardMap().allShards(), shard -> scanNodes(type, field, def, shard, tally)
              .onSuccess(scanned -> progress.accept(String.format(
                  "nodes of %s on shard %d scanned: %d nodes so far, %d claims restored, %d duplicates",
                  typeName, shard, tally.nodes, tally.restored, tally.duplicates.size()))))
          .compose(nodes -> Futures.forEach(homes, home -> scanClaims(type, field, def, home, tally)
              .onSuccess(scanned -> progress.accept(String.format("claims of %s.%s on shard %d scanned: %d claims so far,"
                  + " %d orphans removed, %d in flight", typeName, field, home, tally.claims, tally.removed,
                  tally.inFlight)))))
          .map(claims -> {
            List<UniqueIndex.Duplicate> duplicates = new ArrayList<>();
            tally.duplicates.forEach((key, nodes) -> duplicates.add(new UniqueIndex.Duplicate(key, List.copyOf(nodes))));
            return new UniqueRepairReport(typeName, field, tally.nodes, tally.claims, tally.restored, tally.removed,
                tally.inFlight, duplicates, def.unique().active());
          });
    });
  }

  private Future<Void> scanNodes(NodeType type, String field, FieldDef def, int shard, Tally tally) {
    NodesTable table = new NodesTable(type);
    long[] after = {0};
    return Futures.repeat(() -> {
      ShardRoute route = router.route(shard, Access.READ);
      return client.read(route, sql -> table.page(sql, route, after[0], PAGE)).compose(page -> {
        List<Future<Void>> checked = new ArrayList<>();
        for (StoredNode node : page) {
          count(tally, () -> tally.nodes++);
          String key = UniqueIndex.key(def.type(), node.data().get(field));
          if (key != null) {
            checked.add(ensureClaimed(UniqueClaims.Value.of(type, field, def, key), node, tally));
          }
        }
        return Future.all(checked).map(all -> {
          if (page.size() < PAGE) {
            return false;
          }
          after[0] = page.get(page.size() - 1).id().local();
          return true;
        });
      });
    });
  }

  /** The node holds the value: its claim is made or confirmed, or the value is a duplicate. */
  private Future<Void> ensureClaimed(UniqueClaims.Value value, StoredNode node, Tally tally) {
    return claims.attempt(value, node.id(), node.version()).map(attempt -> {
      switch (attempt.outcome()) {
        case CLAIMED, TAKEN_OVER -> count(tally, () -> tally.restored++);
        case IN_FLIGHT -> count(tally, () -> tally.inFlight++);
        case HELD -> count(tally, () -> {
          if (tally.duplicates.size() < MAX_DUPLICATES || tally.duplicates.containsKey(value.key())) {
            TreeSet<String> nodes = tally.duplicates.computeIfAbsent(value.key(), key -> new TreeSet<>());
            nodes.add(attempt.holder().toString());
            nodes.add(node.id().toString());
          }
        });
        case OURS -> { }
      }
      return null;
    });
  }

  private Future<Void> scanClaims(NodeType type, String field, FieldDef def, int home, Tally tally) {
    UniqueTable table = new UniqueTable(type, field);
    byte[][] after = {null};
    return Futures.repeat(() -> {
      ShardRoute route = router.route(home, Access.WRITE);
      return client.read(route, sql -> table.page(sql, route, after[0], PAGE)).compose(page -> {
        List<Future<Void>> checked = new ArrayList<>();
        for (Claim claim : page) {
          count(tally, () -> tally.claims++);
          UniqueClaims.Value value = UniqueClaims.Value.of(type, field, def, claim.key());
          checked.add(claims.holds(value, claim.node()).compose(holding -> {
            if (holding) {
              return Future.succeededFuture();
            }
            if (claims.young(claim)) {
              count(tally, () -> tally.inFlight++);
              return Future.succeededFuture();
            }
            return client.write(route, sql -> table.remove(sql, route, claim)).map(removed -> {
              if (removed) {
                count(tally, () -> tally.removed++);
              }
              return null;
            });
          }));
        }
        return Future.all(checked).map(all -> {
          if (page.size() < PAGE) {
            return false;
          }
          after[0] = page.get(page.size() - 1).hash();
          return true;
        });
      });
    });
  }

  /** Tallies from the callbacks of checks that run side by side, on whichever event loop answers each. */
  private static void count(Tally tally, Runnable update) {
    synchronized (tally) {
      update.run();
    }
  }
}
