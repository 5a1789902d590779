package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.ShardRoute;
import io.vertx.core.Future;
import io.vertx.sqlclient.SqlConnection;
import java.util.List;

/**
 * {@code inverse_marks}: one row per shard, moved by every transaction that writes inverse copies
 * of edges there, so that a reader of the host's binary log can tell which copies a transaction
 * wrote. An edge copy's row does not say whether it is a forward copy or an inverse one: either
 * direction of a pair may be written by a client, and a symmetric type keeps both copies in one
 * table. Every writer of inverse copies ({@code InverseWriter}: the drainer's batches, a token's
 * apply-now, the repair, a bulk import's inverses) writes nothing else in its transactions, so
 * the mark is the transaction's: a transaction that moved a shard's mark wrote only inverse copies
 * on that shard ({@code TailedChanges}). Per shard rather than once per transaction, so a
 * transaction that one day writes both kinds on different shards is still read right.
 *
 * <p>One row, not one per transaction: the mark's only reader is the binary log, which holds
 * every update of it. Its cost is one upsert per shard per inverse-writing transaction — the
 * drainer writes a pass's inverses of one host in one transaction — and the row's lock, held to
 * that transaction's commit, which two writers of inverses on one shard take in turn.
 * docs/design.md, "The change log written from the binary log", point 3.
 */
public final class InverseMarksTable implements ShardTable {
  public static final InverseMarksTable INSTANCE = new InverseMarksTable();
  private static final List<String> COLUMNS = List.of("id", "marks");

  private InverseMarksTable() {}

  @Override
  public String name() {
    return "inverse_marks";
  }

  @Override
  public List<String> columns() {
    return COLUMNS;
  }

  @Override
  public List<String> key() {
    return List.of("id");
  }

  @Override
  public String ddl(int shard) {
    return "CREATE TABLE IF NOT EXISTS " + on(shard) + " ("
        + " id TINYINT UNSIGNED NOT NULL PRIMARY KEY,"
        + " marks BIGINT UNSIGNED NOT NULL"
        + ") ENGINE=InnoDB";
  }

  /** Marks the caller's transaction as one writing inverse copies on {@code route}'s shard. */
  public Future<Void> mark(SqlConnection connection, ShardRoute route) {
    return connection.query("INSERT INTO " + on(route.shard()) + " (id, marks) VALUES (1, 1)"
        + " ON DUPLICATE KEY UPDATE marks = marks + 1").execute().mapEmpty();
  }
}
