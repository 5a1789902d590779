package io.quiver.store.internal;

import io.quiver.core.Futures;
import io.quiver.core.GraphException;
import io.quiver.store.ChangeCursor;
import io.quiver.store.ChangeEvent;
import io.quiver.store.ChangeLog;
import io.quiver.store.ChangePage;
import io.quiver.store.internal.sql.Access;
import io.quiver.store.internal.sql.ShardClient;
import io.quiver.store.internal.sql.ShardRoute;
import io.quiver.store.internal.sql.ShardRouter;
import io.quiver.store.internal.table.ChangesTable;
import io.vertx.core.Future;
import java.time.Instant;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;

/**
 * Reads the change log ({@link ChangesTable}) on the request pools: one statement per shard asked
 * for, each answering its sequenced rows after the cursor's position there. The shards' rows are
 * merged by write time — which orders nothing across shards, but keeps a page from being one
 * shard's backlog — without ever reordering one shard's rows, and every event is given the cursor
 * just after it. Positions of one shard follow each other without gaps (the sequencer numbers them
 * one by one; only trimming deletes), so a first row past {@code position + 1} means the rows in
 * between were trimmed: the read is GONE, never answered with a silent gap.
 */
final class ChangeReader implements ChangeLog {
  private final ShardRouter router;
  private final ShardClient client;

  ChangeReader(ShardRouter router, ShardClient client) {
    this.router = router;
    this.client = client;
  }

  /** One shard's rows of a page, oldest position first. */
  private record ShardRows(int shard, Deque<ChangesTable.Logged> rows) {}

  @Override
  public Future<ChangePage> read(ChangeCursor after, Set<Integer> shards, Set<String> types, int limit) {
    return Futures.attempt(() -> {
          if (limit < 1 || limit > MAX_LIMIT) {
            throw GraphException.invalid("limit must be within 1.." + MAX_LIMIT + ", got " + limit);
          }
          return routes(shards);
        })
        .compose(routes -> {
          List<Future<ShardRows>> reads = new ArrayList<>(routes.size());
          for (ShardRoute route : routes) {
            reads.add(readShard(route, after.position(route.shard()), types, limit));
          }
          return Future.all(reads).map(all -> merge(all.list(), after, limit));
        });
  }

  @Override
  public Future<ChangeCursor> end(Set<Integer> shards) {
    return Futures.attempt(() -> routes(shards)).compose(routes -> {
      List<Future<ChangesTable.Bounds>> bounds = new ArrayList<>(routes.size());
      for (ShardRoute route : routes) {
        bounds.add(client.read(route, sql -> ChangesTable.INSTANCE.bounds(sql, route)));
      }
      return Future.all(bounds).map(all -> {
        ChangeCursor cursor = ChangeCursor.START;
        for (int i = 0; i < routes.size(); i++) {
          cursor = cursor.after(routes.get(i).shard(), bounds.get(i).result().newest());
        }
        return cursor;
      });
    });
  }

  /** The routes of the shards asked for, every shard of the map when none; INVALID_ARGUMENT for one not in it. */
  private List<ShardRoute> routes(Set<Integer> shards) {
    List<Integer> asked = shards.isEmpty() ? router.shardMap().allShards() : List.copyOf(shards);
    List<ShardRoute> routes = new ArrayList<>(asked.size());
    for (int shard : asked) {
      routes.add(router.route(shard, Access.READ));
    }
    return routes;
  }

  private Future<ShardRows> readShard(ShardRoute route, long after, Set<String> types, int limit) {
    return client.read(route, sql -> ChangesTable.INSTANCE.read(sql, route, after, types, limit)
        .compose(rows -> {
          boolean gap = !rows.isEmpty() && rows.get(0).position() > after + 1;
          if (!gap) {
            return Future.succeededFuture(rows);
          }
          if (types.isEmpty()) {
            return ChangesTable.INSTANCE.continues(rows.get(0), after) ? Future.succeededFuture(rows)
                : Future.failedFuture(gone(route.shard(), after, rows.get(0).position()));
          }
          // Filtered by type, a gap is other types' rows: the log's oldest row says whether any were trimmed.
          return ChangesTable.INSTANCE.oldest(sql, route).compose(oldest -> oldest == null
                  || oldest.position() <= after + 1 || ChangesTable.INSTANCE.continues(oldest, after)
              ? Future.succeededFuture(rows)
              : Future.failedFuture(gone(route.shard(), after, oldest.position())));
        }))
        .map(rows -> new ShardRows(route.shard(), new ArrayDeque<>(rows)));
  }

  private static GraphException gone(int shard, long after, long oldest) {
    return GraphException.of(GraphException.Code.GONE, "the change log of shard " + shard + " reaches back to position "
        + oldest + "; the cursor is at " + after + ", and the changes between were trimmed (older than the log's"
        + " retention): start again from a cursor without shard " + shard + ", or rebuild from the graph itself",
        Map.of("shard", shard, "oldest", oldest, "cursor", after));
  }

  /** The shards' rows, merged by write time within each shard's order, the first {@code limit} of them. */
  private static ChangePage merge(List<ShardRows> shards, ChangeCursor after, int limit) {
    List<ChangeEvent> events = new ArrayList<>();
    ChangeCursor cursor = after;
    while (events.size() < limit) {
      ShardRows next = null;
      for (ShardRows shard : shards) {
        if (!shard.rows().isEmpty() && (next == null
            || shard.rows().peekFirst().writtenUs() < next.rows().peekFirst().writtenUs())) {
          next = shard;
        }
      }
      if (next == null) {
        break;
      }
      ChangesTable.Logged row = next.rows().pollFirst();
      cursor = cursor.after(next.shard(), row.position());
      events.add(new ChangeEvent(next.shard(), row.position(), micros(row.writtenUs()), row.typeName(), row.event(),
          cursor));
    }
    return new ChangePage(events, cursor);
  }

  private static Instant micros(long micros) {
    return Instant.ofEpochSecond(TimeUnit.MICROSECONDS.toSeconds(micros), (micros % 1_000_000) * 1000);
  }
}
