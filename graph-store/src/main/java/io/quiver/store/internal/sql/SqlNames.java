package io.quiver.store.internal.sql;

import io.quiver.store.NodeId;

/**
 * Database and table names, the only identifiers ever written into SQL text. Values always go
 * through bind parameters; identifiers cannot, so each is built from a shard number or a
 * registry name and checked against a strict pattern before use.
 *
 * <p>Every statement a request sends names its table through here, so the check is a loop over
 * the name's characters and the database's digits are padded by hand: as a regular expression
 * and {@code String.format}, they took a tenth of a server's CPU on the writes mix (a JFR profile
 * of {@code ./bench workload --mix writes}, issue 37).
 */
public final class SqlNames {
  /** What a table or column name may be: {@value #TABLE_PATTERN}. */
  private static final String TABLE_PATTERN = "[a-z][a-z0-9_]{0,63}";
  private static final int MAX_NAME = 64;

  private SqlNames() {}

  /** The database of a shard: {@code db00000} … {@code db65535}. */
  public static String database(int shard) {
    if (shard < 0 || shard > NodeId.MAX_SHARD) {
      throw new IllegalArgumentException("shard " + shard + " is outside 0.." + NodeId.MAX_SHARD);
    }
    String digits = Integer.toString(shard);
    return "db00000".substring(0, 7 - digits.length()) + digits;
  }

  /**
   * The shard whose database {@code name} is, {@link #database}'s inverse; -1 for a name that is
   * no shard's database (read back from a host: a binary log's table map names any database).
   */
  public static int shardOf(String name) {
    if (name == null || name.length() != 7 || !name.startsWith("db")) {
      return -1;
    }
    int shard = 0;
    for (int i = 2; i < 7; i++) {
      char c = name.charAt(i);
      if (c < '0' || c > '9') {
        return -1;
      }
      shard = shard * 10 + (c - '0');
    }
    return shard <= NodeId.MAX_SHARD ? shard : -1;
  }

  /** Whether {@code name} matches {@value #TABLE_PATTERN}. */
  static boolean isName(String name) {
    if (name == null || name.isEmpty() || name.length() > MAX_NAME) {
      return false;
    }
    char first = name.charAt(0);
    if (first < 'a' || first > 'z') {
      return false;
    }
    for (int i = 1; i < name.length(); i++) {
      char c = name.charAt(i);
      if (!(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '_')) {
        return false;
      }
    }
    return true;
  }

  /**
   * A table or column name read back from a host (information_schema) before it is written into
   * SQL text: it must be one Quiver could have given, or the work stops.
   */
  public static String identifier(String name) {
    if (!isName(name)) {
      throw new IllegalStateException("'" + name + "' is not a name Quiver gives its tables or columns ("
          + TABLE_PATTERN + ")");
    }
    return name;
  }

  /** A table of a shard, qualified and quoted: {@code `db00003`.`nodes_pin`}. */
  public static String table(int shard, String table) {
    if (!isName(table)) {
      throw new IllegalArgumentException("table name '" + table + "' must match " + TABLE_PATTERN);
    }
    return "`" + database(shard) + "`.`" + table + "`";
  }
}
