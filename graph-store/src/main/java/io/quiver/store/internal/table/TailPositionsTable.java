package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.SqlErrors;
import io.vertx.core.Future;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.SqlClient;
import io.vertx.sqlclient.SqlConnection;
import io.vertx.sqlclient.Tuple;
import java.util.List;

/**
 * {@code quiver_tail.positions}: how far each host's tailer has written the change log from the
 * host's binary log — one row per host of the shard map, its GTID position — kept on the host
 * itself, outside the shard databases, and moved in the same transaction as the change rows it
 * covers, so a tailer that dies resumes exactly where its last batch committed: no change logged
 * twice, none skipped.
 *
 * <p>Why not in a shard database: a shard's tables move with it (a move copies and checksums
 * them), and the position is the host's, not a shard's. Why not in ZooKeeper: it could not commit
 * with the rows. A host's replica holds the row too (it replicates every database), under the same
 * host name, which a failover keeps.
 *
 * <p>Each row is also a fence for a second tailer of the same host (two servers holding the host's
 * lease for a moment, at a handover): every batch reads the row with a lock and commits only if it
 * still holds the position this tailer last wrote ({@link #readLocked}), so one of two tailers
 * stops instead of both logging the same transactions.
 */
public final class TailPositionsTable {
  public static final TailPositionsTable INSTANCE = new TailPositionsTable();
  private static final String TABLE = "`quiver_tail`.`positions`";

  private TailPositionsTable() {}

  /**
   * The statements that create the database and table where they are missing, and keep the host's
   * position now where it has none, the host's name their one parameter (the last statement's):
   * provisioning runs them on every host, so a tailer started later logs every change made to the
   * host's shards after they were created. On MySQL the last statement fails with
   * {@link SqlErrors#ER_UNKNOWN_SYSTEM_VARIABLE} (the position is MariaDB's), which provisioning
   * passes over: no tailer reads a MySQL host.
   */
  public List<String> provisioning() {
    return List.of(
        "CREATE DATABASE IF NOT EXISTS `quiver_tail` CHARACTER SET utf8mb4 COLLATE utf8mb4_bin",
        "CREATE TABLE IF NOT EXISTS " + TABLE + " ("
            + " host VARCHAR(64) NOT NULL PRIMARY KEY,"
            + " gtid_pos VARCHAR(4096) NOT NULL"
            + ") ENGINE=InnoDB",
        "INSERT IGNORE INTO " + TABLE + " (host, gtid_pos) VALUES (?, @@GLOBAL.gtid_binlog_pos)");
  }

  /** {@link #provisioning}, run on {@code client}'s host for {@code host}: a tailer of a host never provisioned so. */
  public Future<Void> provision(SqlClient client, String host) {
    List<String> statements = provisioning();
    return client.query(statements.get(0)).execute()
        .compose(created -> client.query(statements.get(1)).execute())
        .compose(created -> client.preparedQuery(statements.get(2)).execute(Tuple.of(host)))
        .mapEmpty();
  }

  /** The host's position; null when it has none. */
  public Future<String> read(SqlClient client, String host) {
    return client.preparedQuery("SELECT gtid_pos FROM " + TABLE + " WHERE host = ?").execute(Tuple.of(host))
        .map(TailPositionsTable::position);
  }

  /** Where the host's binary log is now: the position through every transaction it has committed. */
  public Future<String> now(SqlClient client) {
    return client.query("SELECT @@GLOBAL.gtid_binlog_pos AS pos").execute()
        .map(rows -> rows.iterator().next().getString("pos"));
  }

  /** The host's position, read with its row locked in the caller's transaction; null when it has none. */
  public Future<String> readLocked(SqlConnection connection, String host) {
    return connection.preparedQuery("SELECT gtid_pos FROM " + TABLE + " WHERE host = ? FOR UPDATE")
        .execute(Tuple.of(host))
        .map(TailPositionsTable::position);
  }

  /** The position a read of a host's row found; null when there is no row. */
  private static String position(RowSet<Row> rows) {
    return rows.size() == 0 ? null : rows.iterator().next().getString("gtid_pos");
  }

  /** Moves the host's position to {@code position}, in the caller's transaction. */
  public Future<Void> write(SqlConnection connection, String host, String position) {
    return connection.preparedQuery("UPDATE " + TABLE + " SET gtid_pos = ? WHERE host = ?")
        .execute(Tuple.of(position, host)).mapEmpty();
  }

  /** The statement of {@link #markLogged}, the host's name its one parameter; the table must exist. */
  public String markLoggedSql() {
    return "INSERT INTO " + TABLE + " (host, gtid_pos) VALUES (?, @@GLOBAL.gtid_binlog_pos)"
        + " ON DUPLICATE KEY UPDATE gtid_pos = @@GLOBAL.gtid_binlog_pos";
  }

  /**
   * Moves the host's position to where its binary log is now: a server whose writes log their own
   * changes does, for every host it drains, when it starts draining it and at every trim after, so
   * that a tailer started one day begins about there instead of logging again what the writes
   * logged since the last tailer stopped. Every transaction before that position either wrote its
   * own change rows or was written without the log. Creates the table where a host has none.
   */
  public Future<Void> markLogged(SqlClient client, String host) {
    String sql = markLoggedSql();
    return client.preparedQuery(sql).execute(Tuple.of(host)).<Void>mapEmpty()
        .recover(failure -> !SqlErrors.missingTable(failure) ? Future.failedFuture(failure)
            : provision(client, host).compose(created -> client.preparedQuery(sql).execute(Tuple.of(host)))
                .mapEmpty())
        // A MySQL host has no GTID position of MariaDB's, and no tailer reads it (BinlogTail refuses it).
        .recover(failure -> SqlErrors.unknownVariable(failure) ? Future.succeededFuture() : Future.failedFuture(failure));
  }
}
