package io.quiver.store;

import io.quiver.schema.Schema;
import io.quiver.store.internal.sql.SqlErrors;
import io.quiver.store.internal.sql.SqlNames;
import io.quiver.store.internal.sql.SqlValues;
import io.quiver.store.internal.table.ChangesTable;
import io.quiver.store.internal.table.ShardTables;
import io.quiver.store.internal.table.TailPositionsTable;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * What a shard database holds, for the code that creates, copies and drops shard databases (the
 * fleet module's provisioning and shard moves): each shard's database name, every table a schema
 * gives it with its DDL, and the one check every identifier read back from a host passes before
 * it is written into SQL text. The tables themselves — their columns and statements — stay inside
 * graph-store; this is the part of them fleet work needs.
 */
public final class ShardLayout {
  private ShardLayout() {}

  /** One table of a shard database, as provisioning creates it. */
  public interface Table {

    /** The table's name inside a shard database. */
    String name();

    /** The statement that creates this table on one shard if it is not there (the table class's own DDL). */
    String ddl(int shard);

    /**
     * Statements that bring an existing table of an older layout up to this one, given the columns
     * it has; empty when it is current. Provisioning runs them before anything reads the table.
     */
    default List<String> upgrades(int shard, Set<String> existingColumns) {
      return List.of();
    }

    /** The table's qualified, quoted name on one shard: {@code `db00003`.`nodes_pin`}. */
    default String on(int shard) {
      return SqlNames.table(shard, name());
    }
  }

  /**
   * Every table a shard holds under {@code schema}: one per node type and one per unique field of
   * it, one per edge type, counts, the outbox, the change log, bulk imports' references and the inverse marks.
   */
  public static List<Table> tables(Schema schema) {
    return List.copyOf(ShardTables.of(schema));
  }

  /** A statement for fleet work to run over JDBC, with its parameters in order. */
  public record Statement(String sql, List<Object> parameters) {
    public Statement {
      parameters = List.copyOf(parameters);
    }
  }

  /**
   * What a failover runs on each shard of the replica it has just promoted, before any write
   * reaches it: the shard's change log moves far past the newest position there, with a marker
   * event of kind {@code failover}, so no position the lost primary may have given alone is ever
   * given again to another change (the change log's table says why).
   */
  public static Statement changeLogFailover(int shard, Instant at) {
    ChangesTable.Marker marker = ChangesTable.INSTANCE.failoverMark(shard, SqlValues.micros(at));
    return new Statement(marker.sql(), marker.parameters());
  }

  /** MySQL's error for a system variable it does not have, which {@link #hostStatements}' last statement meets on MySQL. */
  public static final int UNKNOWN_SYSTEM_VARIABLE = SqlErrors.ER_UNKNOWN_SYSTEM_VARIABLE;

  /**
   * What provisioning runs once on each host beside its shard databases, in order: the table where
   * the host's change-log tailer keeps its position in the host's binary log, created where it is
   * missing, with the host's position now kept where it has none, so a tailer started later logs
   * every change made after the host's shards were provisioned ({@code TailPositionsTable}). On
   * MySQL the last fails as {@link #UNKNOWN_SYSTEM_VARIABLE} (the position is MariaDB's), and
   * provisioning passes over that: no tailer reads a MySQL host.
   */
  public static List<Statement> hostStatements(String host) {
    List<String> sql = TailPositionsTable.INSTANCE.provisioning();
    List<Statement> statements = new ArrayList<>();
    for (int i = 0; i < sql.size(); i++) {
      statements.add(new Statement(sql.get(i), i == sql.size() - 1 ? List.of(host) : List.of()));
    }
    return statements;
  }

  /**
   * Moves {@code host}'s change-log tail position to where its binary log is now. What a shard
   * move's cut-over runs, with the log written from the binary log, on a target that serves no
   * shard yet: no tailer has kept its position while it had none (a tailer runs only for a host
   * with shards), and what its log holds since is nothing of its own to log — its position might
   * even have been purged from it by now.
   */
  public static Statement tailPositionNow(String host) {
    return new Statement(TailPositionsTable.INSTANCE.markLoggedSql(), List.of(host));
  }

  /** The database of a shard: {@code db00000} … {@code db65535}. */
  public static String database(int shard) {
    return SqlNames.database(shard);
  }

  /**
   * A table or column name read back from a host (information_schema) before it is written into
   * SQL text: it must be one Quiver could have given ({@code [a-z][a-z0-9_]{0,63}}), or the work
   * stops with an IllegalStateException.
   */
  public static String identifier(String name) {
    return SqlNames.identifier(name);
  }
}
