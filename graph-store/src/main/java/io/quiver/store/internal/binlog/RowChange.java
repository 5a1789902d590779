package io.quiver.store.internal.binlog;

import java.util.List;
import java.util.Objects;

/**
 * One row a committed transaction changed in a shard database, as the binary log holds it: the
 * shard, the table's name, what happened, and the row's images, each a list of its column values
 * in the table's column order ({@code ShardTable#columns()}). An insert has no {@code before}, a
 * delete no {@code after} (null). The hosts log full images ({@code binlog_row_image=FULL}, the
 * default), so an update's images hold every column.
 *
 * <p>Values arrive as the binary log encodes them, not as the SQL client decodes them: integers as
 * {@code Long} or {@code Integer} — a {@code BIGINT UNSIGNED} above {@link Long#MAX_VALUE} as a
 * negative {@code Long}, its bits unchanged (no id Quiver gives is that large) — and text, JSON
 * included (MariaDB stores JSON as text), as UTF-8 bytes, since a row event carries no character
 * set for a column; NULL as null.
 */
public record RowChange(int shard, String table, Kind kind, List<Object> before, List<Object> after) {
  /** What a row event did to its row. */
  public enum Kind {
    INSERT,
    UPDATE,
    DELETE
  }

  public RowChange {
    Objects.requireNonNull(table, "table");
    Objects.requireNonNull(kind, "kind");
    if ((before == null) != (kind == Kind.INSERT) || (after == null) != (kind == Kind.DELETE)) {
      throw new IllegalArgumentException(kind + " of " + table + " with before " + (before != null)
          + " and after " + (after != null));
    }
  }

  /** The value of column {@code index} after the change; the row's last value before it, for a delete. */
  public Object value(int index) {
    return (after != null ? after : before).get(index);
  }
}
