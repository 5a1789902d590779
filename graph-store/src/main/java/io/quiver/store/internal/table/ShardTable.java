package io.quiver.store.internal.table;

import java.util.List;

/**
 * One table kind of a shard database: beside what provisioning needs ({@link
 * io.quiver.store.ShardLayout.Table}: its name, DDL and upgrades), its columns and key, which the
 * statements of the stores are written from.
 */
public interface ShardTable extends io.quiver.store.ShardLayout.Table {

  /** Every column, in the order the DDL declares them. */
  List<String> columns();

  /** The primary key's columns, in key order. */
  List<String> key();

  /** The column list as SQL: {@code a, b, c}. */
  default String columnList() {
    return String.join(", ", columns());
  }
}
