package io.quiver.store.internal.sql;

import io.quiver.core.GraphException;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.sqlclient.PrepareOptions;
import io.vertx.sqlclient.PreparedQuery;
import io.vertx.sqlclient.PreparedStatement;
import io.vertx.sqlclient.Query;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.SqlResult;
import io.vertx.sqlclient.Transaction;
import io.vertx.sqlclient.Tuple;
import io.vertx.sqlclient.spi.DatabaseMetadata;
import java.util.List;
import java.util.function.Function;
import java.util.stream.Collector;

/**
 * The connection a transaction's work is lent by {@link ShardClient}: its statements go to the
 * transaction's session until the transaction {@link #end ends} — COMMIT or ROLLBACK sent, or
 * BEGIN failed — and after that a statement is refused without being sent.
 *
 * <p>Why it must be refused. A work sends statements in parallel branches (a lock and an existence
 * check, a row write beside its outbox entry) and fails as soon as one branch fails. The
 * transaction then rolls back and its connection goes back to the pool while a branch still under
 * way may yet send its next statement. Sent, that statement runs after the ROLLBACK, on its own and
 * committed at once, or — the pool having lent the session again — inside whichever transaction
 * borrowed it next, committed or rolled back with that one. A change-log row for a write that never
 * happened, half of one edge write committed in another's transaction: the vertx-sql-client pool
 * does not stop a closed lease from sending (a test of ours shows a statement sent on a returned
 * connection rolled back with its next borrower's transaction), so the transaction that lent the
 * connection does.
 *
 * <p>A transaction's work needs only {@code query} and {@code preparedQuery}; beginning, ending and
 * releasing belong to {@link ShardClient}, and are refused here.
 */
final class LentConnection implements SqlConnection {
  private final SqlConnection session;
  /** Set on the session's context when the transaction ends; read there by every statement. */
  private volatile boolean ended;

  LentConnection(SqlConnection session) {
    this.session = session;
  }

  /** The transaction is ending: no statement sent from now on belongs to it. */
  void end() {
    ended = true;
  }

  private <T> Future<T> refused() {
    return Future.failedFuture(GraphException.of(GraphException.Code.INTERNAL,
        "a statement sent after its transaction ended was refused, unsent"));
  }

  @Override
  public Query<RowSet<Row>> query(String sql) {
    return new Lent<>(session.query(sql));
  }

  @Override
  public PreparedQuery<RowSet<Row>> preparedQuery(String sql) {
    return new LentPrepared<>(session.preparedQuery(sql));
  }

  @Override
  public PreparedQuery<RowSet<Row>> preparedQuery(String sql, PrepareOptions options) {
    return new LentPrepared<>(session.preparedQuery(sql, options));
  }

  /** A query that is sent only while the transaction lasts. */
  private class Lent<T> implements Query<T> {
    private final Query<T> query;

    Lent(Query<T> query) {
      this.query = query;
    }

    @Override
    public Future<T> execute() {
      return ended ? refused() : query.execute();
    }

    @Override
    public <R> Query<SqlResult<R>> collecting(Collector<Row, ?, R> collector) {
      return new Lent<>(query.collecting(collector));
    }

    @Override
    public <U> Query<RowSet<U>> mapping(Function<Row, U> mapper) {
      return new Lent<>(query.mapping(mapper));
    }
  }

  /** A prepared query that is sent only while the transaction lasts. */
  private final class LentPrepared<T> extends Lent<T> implements PreparedQuery<T> {
    private final PreparedQuery<T> prepared;

    LentPrepared(PreparedQuery<T> prepared) {
      super(prepared);
      this.prepared = prepared;
    }

    @Override
    public Future<T> execute(Tuple arguments) {
      return ended ? refused() : prepared.execute(arguments);
    }

    @Override
    public Future<T> executeBatch(List<Tuple> batch) {
      return ended ? refused() : prepared.executeBatch(batch);
    }

    @Override
    public <R> PreparedQuery<SqlResult<R>> collecting(Collector<Row, ?, R> collector) {
      return new LentPrepared<>(prepared.collecting(collector));
    }

    @Override
    public <U> PreparedQuery<RowSet<U>> mapping(Function<Row, U> mapper) {
      return new LentPrepared<>(prepared.mapping(mapper));
    }
  }

  @Override
  public Future<PreparedStatement> prepare(String sql) {
    return notTheWorks("prepare");
  }

  @Override
  public Future<PreparedStatement> prepare(String sql, PrepareOptions options) {
    return notTheWorks("prepare");
  }

  @Override
  public Future<Transaction> begin() {
    return notTheWorks("begin");
  }

  @Override
  public Transaction transaction() {
    return session.transaction();
  }

  @Override
  public Future<Void> close() {
    return notTheWorks("close");
  }

  private static <T> Future<T> notTheWorks(String what) {
    return Future.failedFuture(new IllegalStateException(
        "a transaction's work may not " + what + " its connection: ShardClient does"));
  }

  @Override
  public SqlConnection exceptionHandler(Handler<Throwable> handler) {
    session.exceptionHandler(handler);
    return this;
  }

  @Override
  public SqlConnection closeHandler(Handler<Void> handler) {
    session.closeHandler(handler);
    return this;
  }

  @Override
  public boolean isSSL() {
    return session.isSSL();
  }

  @Override
  public DatabaseMetadata databaseMetadata() {
    return session.databaseMetadata();
  }
}
