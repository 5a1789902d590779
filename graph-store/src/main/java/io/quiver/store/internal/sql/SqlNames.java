package io.quiver.store.internal.sql;

import io.quiver.store.NodeId;
import java.util.regex.Pattern;

/**
 * Database and table names, the only identifiers ever written into SQL text. Values always go
 * through bind parameters; identifiers cannot, so each is built from a shard number or a
 * registry name and checked against a strict pattern before use.
 */
public final class SqlNames {
  private static final Pattern TABLE = Pattern.compile("[a-z][a-z0-9_]{0,63}");

  private SqlNames() {}

  /** The database of a shard: {@code db00000} … {@code db65535}. */
  public static String database(int shard) {
    if (shard < 0 || shard > NodeId.MAX_SHARD) {
      throw new IllegalArgumentException("shard " + shard + " is outside 0.." + NodeId.MAX_SHARD);
    }
    return String.format("db%05d", shard);
  }

  /**
   * A table or column name read back from a host (information_schema) before it is written into
   * SQL text: it must be one Quiver could have given, or the work stops.
   */
  public static String identifier(String name) {
    if (name == null || !TABLE.matcher(name).matches()) {
      throw new IllegalStateException("'" + name + "' is not a name Quiver gives its tables or columns ("
          + TABLE.pattern() + ")");
    }
    return name;
  }

  /** A table of a shard, qualified and quoted: {@code `db00003`.`nodes_pin`}. */
  public static String table(int shard, String table) {
    if (!TABLE.matcher(table).matches()) {
      throw new IllegalArgumentException("table name '" + table + "' must match " + TABLE.pattern());
    }
    return "`" + database(shard) + "`.`" + table + "`";
  }
}
