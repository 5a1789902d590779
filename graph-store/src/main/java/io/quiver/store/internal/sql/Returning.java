package io.quiver.store.internal.sql;

import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.spi.DatabaseMetadata;

/**
 * Whether a host's {@code INSERT} answers the rows it wrote ({@code INSERT … RETURNING}): MariaDB
 * 10.5 and later do, MySQL does not. Asked of the very session a statement is sent on, never
 * cached, so a host replaced behind the same pool cannot make an answer wrong. Statements that
 * rely on it keep a path for a host without it (issue 37: an edge write's upsert, a batch's list
 * versions).
 */
public final class Returning {
  private Returning() {}

  /** Whether the host behind {@code connection} answers {@code INSERT … RETURNING}. */
  public static boolean answers(SqlConnection connection) {
    DatabaseMetadata server = connection.databaseMetadata();
    return "MariaDB".equals(server.productName())
        && (server.majorVersion() > 10 || server.majorVersion() == 10 && server.minorVersion() >= 5);
  }
}
