package io.quiver.store.internal.table;

import io.quiver.store.internal.sql.SqlNames;
import java.util.List;

/**
 * One table kind of a shard database: its name, its DDL and its columns. Provisioning creates
 * every {@link ShardTables#of(io.quiver.schema.Schema) table of a schema} from here, and a shard
 * copy or checksum iterates the same list by primary key.
 */
public interface ShardTable {

  /** The table's name inside a shard database, checked by {@link SqlNames}. */
  String name();

  /** Every column, in the order the DDL declares them. */
  List<String> columns();

  /** The primary key's columns, in key order. */
  List<String> key();

  /** {@code CREATE TABLE IF NOT EXISTS} for this table on one shard. */
  String ddl(int shard);

  /**
   * Statements that bring an existing table of an older layout up to this one, given the columns
   * it has; empty when it is current. Provisioning runs them before anything reads the table.
   */
  default List<String> upgrades(int shard, java.util.Set<String> existingColumns) {
    return List.of();
  }

  /** The table's qualified, quoted name on one shard. */
  default String on(int shard) {
    return SqlNames.table(shard, name());
  }

  /** The column list as SQL: {@code a, b, c}. */
  default String columnList() {
    return String.join(", ", columns());
  }
}
