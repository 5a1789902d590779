package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Level;
import io.quiver.core.GraphException.Code;
import io.quiver.core.GraphException;
import io.quiver.core.testing.ExpectedLog;
import io.quiver.store.internal.table.CountsTable;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Pool;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** Error classification checked against what the real server sends, not against message text. */
class SqlErrorsTest {
  private static Vertx vertx;
  private static HostPools pools;
  private static Pool pool;
  private static final String TABLE = CountsTable.INSTANCE.on(0);

  @BeforeAll
  static void start() {
    vertx = Vertx.vertx();
    pools = new HostPools(vertx, TestBackend.get().poolSettings());
    Map<String, Pool> byHost = pools.apply(TestBackend.get().shardMap());
    pool = byHost.get("h1");
    pool.preparedQuery("INSERT IGNORE INTO " + TABLE + " (from_id, edge_type, count) VALUES (?, 999, 0), (?, 999, 0)")
        .execute(Tuple.of(1L, 2L)).await();
  }

  @AfterAll
  static void stop() {
    pools.close().await();
    vertx.close().await();
  }

  private static Future<?> lock(SqlConnection connection, long fromId) {
    return connection.preparedQuery("SELECT count FROM " + TABLE + " WHERE from_id = ? AND edge_type = 999 FOR UPDATE")
        .execute(Tuple.of(fromId));
  }

  @Test
  void deadlock_isAborted_soItIsRetried() {
    Promise<Void> bothHoldTheirFirstLock = Promise.promise();
    Promise<Void> firstLocked = Promise.promise();
    Future<Object> one = pool.withTransaction(c -> lock(c, 1)
        .compose(x -> { firstLocked.complete(); return bothHoldTheirFirstLock.future(); })
        .compose(x -> lock(c, 2)).map(x -> null));
    Future<Object> two = pool.withTransaction(c -> firstLocked.future()
        .compose(x -> lock(c, 2))
        .compose(x -> { bothHoldTheirFirstLock.complete(); return lock(c, 1); }).map(x -> null));

    Throwable failure = Future.join(one, two).transform(done -> Future.succeededFuture(
        one.failed() ? one.cause() : two.cause())).await();

    assertThat(failure).as("one of the two must lose the deadlock").isNotNull();
    GraphException classified = SqlErrors.classify(failure, "h1");
    assertThat(classified.code()).isEqualTo(Code.ABORTED);
    assertThat(((io.vertx.sqlclient.DatabaseException) failure).getErrorCode()).isEqualTo(SqlErrors.ER_LOCK_DEADLOCK);
  }

  @Test
  void lockWaitTimeout_isAborted() {
    Promise<Void> held = Promise.promise();
    Promise<Void> release = Promise.promise();
    Future<Object> holder = pool.withTransaction(c -> lock(c, 1)
        .compose(x -> { held.complete(); return release.future(); }).map(x -> null));
    Future<Object> waiter = held.future().compose(x -> pool.withTransaction(c ->
        c.query("SET SESSION innodb_lock_wait_timeout = 1").execute()
            .compose(y -> lock(c, 1)).map(y -> null)));

    Throwable failure = waiter.transform(done -> Future.succeededFuture(done.cause())).await();
    release.complete();
    holder.await();

    assertThat(((io.vertx.sqlclient.DatabaseException) failure).getErrorCode()).isEqualTo(SqlErrors.ER_LOCK_WAIT_TIMEOUT);
    assertThat(SqlErrors.classify(failure, "h1").code()).isEqualTo(Code.ABORTED);
  }

  @Test
  void aHostOutOfPreparedStatements_isUnavailable_notAnInternalError() {
    long cap = pool.query("SELECT @@max_prepared_stmt_count").execute().await().iterator().next().getLong(0);
    Throwable failure;
    try {
      pool.query("SET GLOBAL max_prepared_stmt_count = 0").execute().await();
      failure = pool.preparedQuery("SELECT count FROM " + TABLE + " WHERE from_id = ? AND edge_type = 998")
          .execute(Tuple.of(1L)).transform(done -> Future.succeededFuture(done.cause())).await();
    } finally {
      pool.query("SET GLOBAL max_prepared_stmt_count = " + cap).execute().await();
    }

    assertThat(((io.vertx.sqlclient.DatabaseException) failure).getErrorCode())
        .isEqualTo(SqlErrors.ER_MAX_PREPARED_STMT_COUNT_REACHED);
    GraphException classified = SqlErrors.classify(failure, "h1");
    assertThat(classified.code()).isEqualTo(Code.UNAVAILABLE);
    assertThat(classified.getMessage()).isEqualTo("host h1 refused the statement (MySQL error 1461)");
  }

  @Test
  void aTableThatCannotGrow_isUnavailable_sayingTheHostIsOutOfSpace_notAnInternalError() throws Exception {
    // A full disk fails an INSERT that must grow its tablespace with error 1114, "The table … is
    // full" (seen on a host whose data volume filled); a capped in-memory table fails the same way.
    String capped = TABLE.substring(0, TABLE.indexOf('.')) + ".capped";
    Throwable failure;
    // MariaDB prints the refusal at ERROR on its console, which the fixture logs: expected here.
    try (ExpectedLog mariaDbSays = ExpectedLog.named("ch.vorburger.exec.ManagedProcess")) {
      failure = pool.withConnection(c -> c.query("SET SESSION max_heap_table_size = 16384").execute()
          .compose(x -> c.query("CREATE TEMPORARY TABLE " + capped + " (filler CHAR(255)) ENGINE=MEMORY").execute())
          .compose(x -> c.query("INSERT INTO " + capped + " SELECT 'x' FROM " + capped.replace("capped", "seq_1_to_10000"))
              .execute())
          .eventually(() -> c.query("DROP TEMPORARY TABLE IF EXISTS " + capped).execute()))
          .transform(done -> Future.succeededFuture(done.cause())).await();
      mariaDbSays.await(Level.ERROR, "The table 'capped' is full", Duration.ofSeconds(5));
    }

    assertThat(((io.vertx.sqlclient.DatabaseException) failure).getErrorCode()).isEqualTo(SqlErrors.ER_RECORD_FILE_FULL);
    GraphException classified = SqlErrors.classify(failure, "h1");
    assertThat(classified.code()).isEqualTo(Code.UNAVAILABLE);
    assertThat(classified.getMessage()).isEqualTo("host h1 is out of space or memory (MySQL error 1114)");
  }

  @Test
  void otherServerErrors_areInternal_andKeepTheirCause() {
    Throwable failure = pool.query("SELECT * FROM no_such_table").execute()
        .transform(done -> Future.succeededFuture(done.cause())).await();

    GraphException classified = SqlErrors.classify(failure, "h1");

    assertThat(classified.code()).isEqualTo(Code.INTERNAL);
    assertThat(classified.getCause()).isSameAs(failure);
  }
}
