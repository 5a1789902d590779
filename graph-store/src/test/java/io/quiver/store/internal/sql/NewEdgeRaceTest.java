package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.store.NodeId;
import io.quiver.store.PoolSettings;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.internal.table.EdgeRow;
import io.quiver.store.internal.table.EdgesTable;
import io.quiver.store.shard.Host;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.PoolOptions;
import java.sql.Connection;
import java.sql.Statement;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Two writers of one new edge ({@link EdgesTable#readLocked}, {@link EdgesTable#write}): neither
 * finds a row to lock, so both insert it, and the loser's transaction is run again. The race is
 * made to happen every time: the first writer's read is answered, then the second writer commits
 * the row, then the first writes.
 */
class NewEdgeRaceTest {
  private static final long FIRST = 9_000_000;
  private static final AtomicLong NEXT = new AtomicLong(FIRST);
  private static Vertx vertx;
  private static Pool pool;
  private static ShardClient client;
  private static ShardRoute route;
  private static EdgesTable table;

  @BeforeAll
  static void start() {
    TestBackend backend = TestBackend.get();
    PoolSettings settings = backend.poolSettings();
    Host host = backend.shardMap().hosts().get("h1");
    int shard = backend.shardMap().shardsOn("h1").get(0);
    vertx = Vertx.vertx();
    pool = HostPools.pool(vertx, host, settings, new PoolOptions().setMaxSize(2), null);
    client = new ShardClient(vertx, settings, new MapWrites(backend::shardMap, version -> {}));
    route = new ShardRoute(shard, "h1", pool, true);
    table = new EdgesTable(backend.schema().edgeType("board_has_pins").orElseThrow());
  }

  @AfterAll
  static void stop() {
    pool.close().await();
    vertx.close().await();
  }

  /** The rows written here name no node (type id 0): the suites that scan every edge must not meet them. */
  @AfterEach
  void removeWhatWasWritten() throws Exception {
    TestBackend backend = TestBackend.get();
    try (Connection admin = backend.connect(backend.shardMap().hosts().get("h1").primary());
        Statement sql = admin.createStatement()) {
      String written = " WHERE from_id BETWEEN " + FIRST + " AND " + NEXT.get();
      sql.execute("DELETE FROM " + table.on(route.shard()) + written);
      sql.execute("DELETE FROM " + CountsTable.INSTANCE.on(route.shard()) + written);
    }
  }

  private static NodeId node() {
    return new NodeId(NEXT.incrementAndGet());
  }

  private static EdgeRow active(long sequence) {
    return new EdgeRow(sequence, EdgeRow.ACTIVE, null, System.currentTimeMillis() * 1000 + sequence);
  }

  /** Reads the row locked and writes {@code row}: one writer's whole transaction. */
  private static Future<Void> write(NodeId from, NodeId to, EdgeRow row) {
    return client.inTransaction(route, connection -> table.readLocked(connection, route, from.value(), to.value())
        .compose(stored -> table.write(connection, route, from, to, stored, row)).mapEmpty());
  }

  private static EdgeRow stored(NodeId from, NodeId to) {
    return client.inTransaction(route, connection -> table.readLocked(connection, route, from.value(), to.value()))
        .await();
  }

  @Test
  void aWriterThatFoundNoRow_andLostItsInsertToAnother_isRunAgain_andWritesOverTheRowTheOtherInserted() {
    NodeId from = node();
    NodeId to = node();
    AtomicInteger attempts = new AtomicInteger();
    AtomicInteger countDeltas = new AtomicInteger();

    client.inTransaction(route, connection -> table.readLocked(connection, route, from.value(), to.value())
        .compose(stored -> {
          // The first attempt finds no row; before it writes, another writer commits one.
          Future<Void> other = attempts.incrementAndGet() == 1 ? write(from, to, active(1)) : Future.succeededFuture();
          return other.compose(done -> table.write(connection, route, from, to, stored, active(2)))
              .onSuccess(changed -> countDeltas.addAndGet(changed.countDelta()));
        })).await();

    assertThat(attempts.get()).as("the insert that lost the race ran its transaction again").isEqualTo(2);
    assertThat(stored(from, to).sequence()).isEqualTo(2);
    assertThat(countDeltas.get()).as("the second attempt found the edge: the count moved once, by the other")
        .isZero();
  }
}
