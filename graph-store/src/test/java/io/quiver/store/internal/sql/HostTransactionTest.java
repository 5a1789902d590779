package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.internal.table.OutboxTable;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.testing.ShardTables;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.Tuple;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * One transaction over several shards of a host ({@link ShardClient#inTransaction(List,
 * java.util.function.Function)}): their databases live on one MariaDB server, so one COMMIT makes
 * every shard's writes visible together, or none of them — what lets the change sequencer number
 * a whole pass's shards with one log flush.
 */
class HostTransactionTest {
  /** A mark no drainer takes: held-back entries are never due. */
  private static final long MARK = 424242;
  private static Vertx vertx;
  private static HostPools pools;
  private static ShardClient client;
  private static ShardTables tables;
  private static List<ShardRoute> onH1;

  @BeforeAll
  static void start() throws Exception {
    TestBackend backend = TestBackend.get();
    vertx = Vertx.vertx();
    pools = new HostPools(vertx, backend.poolSettings());
    ShardMap map = backend.shardMap();
    Map<String, Pool> byHost = pools.apply(map);
    client = new ShardClient(vertx, backend.poolSettings(), new MapWrites(() -> map, version -> { }));
    tables = new ShardTables(backend);
    onH1 = new ArrayList<>();
    for (int shard : map.shardsOn("h1")) {
      onH1.add(new ShardRoute(shard, "h1", byHost.get("h1"), true));
    }
  }

  @AfterAll
  static void stop() throws Exception {
    for (ShardRoute route : onH1) {
      tables.execute(route.shard(), "DELETE FROM " + OutboxTable.INSTANCE.on(route.shard()) + " WHERE from_id = " + MARK);
    }
    pools.close().await();
    vertx.close().await();
  }

  /** Appends one held-back entry marked {@link #MARK} on each route's outbox, in the connection's transaction. */
  private static Future<Void> markEach(io.vertx.sqlclient.SqlConnection connection, List<ShardRoute> routes) {
    Future<Void> done = Future.succeededFuture();
    for (ShardRoute route : routes) {
      done = done.compose(previous -> connection.preparedQuery("INSERT INTO " + OutboxTable.INSTANCE.on(route.shard())
              + " (kind, edge_type, from_id, to_id, state, sequence, data, updated_us, created_us, next_attempt_us)"
              + " VALUES (1, 1, ?, ?, 1, 0, NULL, 0, 0, ?)")
          .execute(Tuple.of(MARK, MARK, ShardTables.HELD_BACK_US)).mapEmpty());
    }
    return done;
  }

  private static long marked() throws Exception {
    long found = 0;
    for (ShardRoute route : onH1) {
      found += tables.outboxEntriesFrom(route.shard(), new io.quiver.store.NodeId(MARK), false);
    }
    return found;
  }

  @Test
  void aTransactionOverEveryShardOfAHost_commitsOnce_andWritesThemAll() throws Exception {
    assertThat(onH1).as("a host of several shards").hasSizeGreaterThan(2);
    long before = tables.commitsOnHostOf(onH1.get(0).shard());

    client.inTransaction(onH1, connection -> markEach(connection, onH1)).await();

    // One, or two should anything else on the host commit meanwhile; a COMMIT per shard would be eight.
    assertThat(tables.commitsOnHostOf(onH1.get(0).shard()) - before).as("one COMMIT for %d shards", onH1.size())
        .isBetween(1L, 2L);
    assertThat(marked()).isEqualTo(onH1.size());
    for (ShardRoute route : onH1) {
      tables.execute(route.shard(), "DELETE FROM " + OutboxTable.INSTANCE.on(route.shard()) + " WHERE from_id = " + MARK);
    }
  }

  @Test
  void aTransactionOverSeveralShards_thatFailsOnTheLast_writesNoneOfThem() throws Exception {
    Future<Void> failed = client.inTransaction(onH1, connection -> markEach(connection, onH1)
        .compose(all -> Future.<Void>failedFuture(GraphException.invalid("the last step refused"))));
    failed.otherwiseEmpty().await();

    assertThat(failed.cause()).hasMessageContaining("the last step refused");
    assertThat(marked()).as("rolled back on every shard").isZero();
  }

  @Test
  void aTransactionOverShardsOfTwoHosts_isRefused() {
    ShardRoute elsewhere = new ShardRoute(onH1.get(0).shard(), "h2", onH1.get(0).pool(), true);
    Future<Void> refused = client.inTransaction(List.of(onH1.get(0), elsewhere), connection -> Future.succeededFuture());

    assertThat(((GraphException) refused.cause()).code()).isEqualTo(GraphException.Code.INTERNAL);
    assertThat(refused.cause()).hasMessageContaining("one transaction runs on one primary");
  }
}
