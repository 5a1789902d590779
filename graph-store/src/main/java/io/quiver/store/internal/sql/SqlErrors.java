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
 * attached as the cause. A host that cannot serve a statement it would serve another time (shutting
 * down, out of connections, out of space or memory: a full disk fails an INSERT that must grow its
 * table with "The table … is full") is {@code UNAVAILABLE}, a 503 a client may retry; only what
 * no retry would change is {@code INTERNAL}.
 */
public final class SqlErrors {
  /** Duplicate entry for a key. */
  public static final int ER_DUP_ENTRY = 1062;
  /** A single-row INSERT gave a NOT NULL column NULL (in any SQL mode); nothing was written. */
  public static final int ER_BAD_NULL_ERROR = 1048;
  /** Deadlock found when trying to get lock; the transaction was rolled back. */
  public static final int ER_LOCK_DEADLOCK = 1213;
  /** Lock wait timeout exceeded. */
  public static final int ER_LOCK_WAIT_TIMEOUT = 1205;
  /** The server runs with --read-only. */
  public static final int ER_OPTION_PREVENTS_STATEMENT = 1290;
  /** Too many connections. */
  public static final int ER_CON_COUNT_ERROR = 1040;
  /** The host holds max_prepared_stmt_count prepared statements already, over all its clients. */
  public static final int ER_MAX_PREPARED_STMT_COUNT_REACHED = 1461;
  /** A CHECK constraint failed: on MariaDB, a JSON column refusing a document (too deep, say). */
  public static final int ER_CONSTRAINT_FAILED = 4025;
  /** Incorrect string value for a column (bytes its character set cannot hold). */
  public static final int ER_TRUNCATED_WRONG_VALUE_FOR_FIELD = 1366;
  /** Data too long for a column. */
  public static final int ER_DATA_TOO_LONG = 1406;
  /** A number out of a column's range. */
  public static final int ER_WARN_DATA_OUT_OF_RANGE = 1264;
  /** MySQL's JSON column refusing a document. */
  public static final int ER_INVALID_JSON_TEXT = 3140;
  /** The server is shutting down. */
  public static final int ER_SERVER_SHUTDOWN = 1053;
  /** Disk full, waiting for someone to free space (the statement then fails rather than waits). */
  public static final int ER_DISK_FULL = 1021;
  /** An unknown database. */
  public static final int ER_BAD_DB_ERROR = 1049;
  /** A table that does not exist. */
  public static final int ER_NO_SUCH_TABLE = 1146;
  /** A system variable the server does not have (MySQL has no {@code gtid_binlog_pos}: it is MariaDB's). */
  public static final int ER_UNKNOWN_SYSTEM_VARIABLE = 1193;
  /** Error writing a file (errno 28: no space left on the device). */
  public static final int ER_ERROR_ON_WRITE = 1026;
  /** The server ran out of memory. */
  public static final int ER_OUTOFMEMORY = 1037;
  /** The server ran out of resources (memory, file handles). */
  public static final int ER_OUT_OF_RESOURCES = 1041;
  /** "The table is full": a tablespace that cannot grow on a full disk, or a capped in-memory table. */
  public static final int ER_RECORD_FILE_FULL = 1114;

  private SqlErrors() {}

  public static GraphException classify(Throwable failure, String host) {
    if (failure instanceof GraphException graph) {
      return graph;
    }
    if (outOfSpaceOrMemory(failure) != 0) {
      return GraphException.of(Code.UNAVAILABLE,
          "host " + host + " is out of space or memory (" + reason(failure) + ")", failure);
    }
    if (failure instanceof DatabaseException db) {
      return switch (db.getErrorCode()) {
        case ER_LOCK_DEADLOCK, ER_LOCK_WAIT_TIMEOUT -> GraphException.of(
            Code.ABORTED, "transaction on host " + host + " was aborted by a lock conflict", failure);
        case ER_OPTION_PREVENTS_STATEMENT, ER_CON_COUNT_ERROR, ER_MAX_PREPARED_STMT_COUNT_REACHED,
            ER_SERVER_SHUTDOWN -> GraphException.of(
            Code.UNAVAILABLE, "host " + host + " refused the statement (" + reason(db) + ")", failure);
        case ER_CONSTRAINT_FAILED, ER_TRUNCATED_WRONG_VALUE_FOR_FIELD, ER_DATA_TOO_LONG, ER_WARN_DATA_OUT_OF_RANGE,
            ER_INVALID_JSON_TEXT -> dataRefused(db, host);
        default -> isDataException(db) ? dataRefused(db, host) : GraphException.of(
            Code.INTERNAL, "host " + host + " failed with MySQL error " + db.getErrorCode(), failure);
      };
    }
    if (isConnectionFailure(failure)) {
      return GraphException.of(Code.UNAVAILABLE, "host " + host + " is unavailable", failure);
    }
    return GraphException.of(Code.INTERNAL, "unexpected failure on host " + host, failure);
  }

  /**
   * The MySQL error number of a refusal for lack of space or memory ({@code classify} makes it
   * {@code UNAVAILABLE}, "out of space or memory"), or 0 for any other failure. Looks through a
   * {@link GraphException} to its cause: a failed COMMIT is answered as one, and a COMMIT that
   * cannot write the binary log fails with error 1026.
   */
  public static int outOfSpaceOrMemory(Throwable failure) {
    Throwable cause = failure instanceof GraphException graph && graph.getCause() != null
        ? graph.getCause() : failure;
    if (cause instanceof DatabaseException db) {
      return switch (db.getErrorCode()) {
        case ER_DISK_FULL, ER_ERROR_ON_WRITE, ER_OUTOFMEMORY, ER_OUT_OF_RESOURCES, ER_RECORD_FILE_FULL -> db.getErrorCode();
        default -> 0;
      };
    }
    return 0;
  }

  /** Whether {@code failure} is MySQL's refusal of a table or database that does not exist (1146, 1049). */
  public static boolean missingTable(Throwable failure) {
    return failure instanceof DatabaseException db
        && (db.getErrorCode() == ER_NO_SUCH_TABLE || db.getErrorCode() == ER_BAD_DB_ERROR);
  }

  /** Whether {@code failure} is the refusal of a system variable the server does not have (1193). */
  public static boolean unknownVariable(Throwable failure) {
    return failure instanceof DatabaseException db && db.getErrorCode() == ER_UNKNOWN_SYSTEM_VARIABLE;
  }

  /**
   * Why a statement failed, in words fit for a caller: a database error by its MySQL number alone
   * (the server's own text names files and tables, and the client wraps it as
   * {@code {errorMessage=…, errorCode=…}}; the log keeps it whole), anything else by its message.
   */
  public static String reason(Throwable failure) {
    if (failure instanceof DatabaseException db) {
      return "MySQL error " + db.getErrorCode();
    }
    return failure.getMessage() != null ? failure.getMessage() : "no reason given";
  }

  /**
   * The host refused the data itself — a value its column cannot hold, JSON it will not store —
   * which request checks should have caught first: a client error, never a server one.
   */
  private static GraphException dataRefused(DatabaseException db, String host) {
    return GraphException.of(Code.INVALID_ARGUMENT,
        "the data cannot be stored: host " + host + " refused it (MySQL error " + db.getErrorCode() + ")", db);
  }

  /** SQLSTATE class 22, "data exception". */
  private static boolean isDataException(DatabaseException db) {
    return db.getSqlState() != null && db.getSqlState().startsWith("22");
  }

  private static boolean isConnectionFailure(Throwable failure) {
    // VertxException covers the pool's own refusals: a full wait queue, a connection timeout.
    return failure instanceof IOException
        || failure instanceof ClosedConnectionException
        || failure instanceof TimeoutException
        || failure instanceof VertxException;
  }
}
