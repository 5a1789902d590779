package io.quiver.store.internal.sql;

import io.quiver.core.GraphException.Code;
import io.quiver.core.GraphException;
import io.vertx.core.VertxException;
import io.vertx.sqlclient.ClosedConnectionException;
import io.vertx.sqlclient.DatabaseException;
import java.io.IOException;
import java.util.concurrent.TimeoutException;

/**
 * Turns what the MySQL client failed with into a {@link GraphException}. Database errors are
 * classified by their MySQL error number, never by message text; the original error stays
 * attached as the cause.
 */
public final class SqlErrors {
  /** Deadlock found when trying to get lock; the transaction was rolled back. */
  public static final int ER_LOCK_DEADLOCK = 1213;
  /** Lock wait timeout exceeded. */
  public static final int ER_LOCK_WAIT_TIMEOUT = 1205;
  /** The server runs with --read-only. */
  public static final int ER_OPTION_PREVENTS_STATEMENT = 1290;
  /** Too many connections. */
  public static final int ER_CON_COUNT_ERROR = 1040;
  /** The server is shutting down. */
  public static final int ER_SERVER_SHUTDOWN = 1053;

  private SqlErrors() {}

  public static GraphException classify(Throwable failure, String host) {
    if (failure instanceof GraphException graph) {
      return graph;
    }
    if (failure instanceof DatabaseException db) {
      return switch (db.getErrorCode()) {
        case ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT -> GraphException.of(
            Code.ABORTED, "transaction on host " + host + " was aborted by a lock conflict", failure);
        case ER_OPTION_PREVENTS_STATEMENT, ER_CON_COUNT_ERROR, ER_SERVER_SHUTDOWN -> GraphException.of(
            Code.UNAVAILABLE, "host " + host + " refused the statement: " + db.getMessage(), failure);
        default -> GraphException.of(
            Code.INTERNAL, "host " + host + " failed with MySQL error " + db.getErrorCode(), failure);
      };
    }
    if (isConnectionFailure(failure)) {
      return GraphException.of(Code.UNAVAILABLE, "host " + host + " is unavailable", failure);
    }
    return GraphException.of(Code.INTERNAL, "unexpected failure on host " + host, failure);
  }

  private static boolean isConnectionFailure(Throwable failure) {
    // VertxException covers the pool's own refusals: a full wait queue, a connection timeout.
    return failure instanceof IOException
        || failure instanceof ClosedConnectionException
        || failure instanceof TimeoutException
        || failure instanceof VertxException;
  }
}
