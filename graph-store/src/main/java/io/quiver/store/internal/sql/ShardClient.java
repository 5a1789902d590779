package io.quiver.store.internal.sql;

import io.quiver.core.GraphException;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Function;

/**
 * Runs statements on a shard. The one place that owns transactions: begin, commit, rollback
 * (re-failing with the original error) and release, and the retry of a transaction that lost a
 * deadlock or a lock wait (MySQL 1213, 1205). Every failure leaves here as a
 * {@link GraphException}.
 */
public final class ShardClient {
  /** Attempts of one transaction before an ABORTED failure is handed to the caller. */
  public static final int MAX_ATTEMPTS = 3;
  private static final long BASE_BACKOFF_MS = 5;

  private final Vertx vertx;

  public ShardClient(Vertx vertx) {
    this.vertx = vertx;
  }

  /** One statement outside a transaction. */
  public Future<RowSet<Row>> query(ShardRoute route, String sql, Tuple arguments) {
    return route.pool().preparedQuery(sql).execute(arguments)
        .recover(failure -> Future.failedFuture(SqlErrors.classify(failure, route.host())));
  }

  /** Statements outside a transaction, on the shard's pool; failures leave classified. */
  public <T> Future<T> read(ShardRoute route, Function<SqlClient, Future<T>> work) {
    Future<T> running;
    try {
      running = work.apply(route.pool());
    } catch (RuntimeException e) {
      running = Future.failedFuture(e);
    }
    return running.recover(failure -> Future.failedFuture(SqlErrors.classify(failure, route.host())));
  }

  /**
   * Runs {@code work} in a transaction on the shard's host, retried whole while it is aborted
   * by a lock conflict. The work must therefore have no effect outside the transaction.
   */
  public <T> Future<T> inTransaction(ShardRoute route, Function<SqlConnection, Future<T>> work) {
    return attempt(route, work, 1);
  }

  private <T> Future<T> attempt(ShardRoute route, Function<SqlConnection, Future<T>> work, int attempt) {
    return route.pool().withTransaction(work)
        .recover(failure -> retryIfAborted(route, work, attempt, SqlErrors.classify(failure, route.host())));
  }

  private <T> Future<T> retryIfAborted(
      ShardRoute route, Function<SqlConnection, Future<T>> work, int attempt, GraphException failure) {
    if (failure.code() != GraphException.Code.ABORTED || attempt >= MAX_ATTEMPTS) {
      return Future.failedFuture(failure);
    }
    long backoff = BASE_BACKOFF_MS * attempt + ThreadLocalRandom.current().nextLong(BASE_BACKOFF_MS);
    return vertx.timer(backoff).compose(fired -> attempt(route, work, attempt + 1));
  }
}
