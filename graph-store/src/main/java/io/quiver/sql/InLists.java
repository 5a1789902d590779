package io.quiver.sql;

/**
 * IN lists with a bounded number of shapes. Each distinct statement text is one prepared
 * statement per connection, and MySQL caps them server-wide; padding a list of n values to the
 * next power of two (by repeating the last value, which IN ignores) keeps the shapes to about
 * log2(max) per table.
 */
public final class InLists {
  private InLists() {}

  /** The number of slots for n values: the next power of two at or above n. */
  public static int bucket(int n) {
    if (n <= 0) {
      throw new IllegalArgumentException("an IN list needs at least one value");
    }
    return n == 1 ? 1 : Integer.highestOneBit(n - 1) << 1;
  }

  public static String placeholders(int slots) {
    StringBuilder sql = new StringBuilder(slots * 3);
    for (int i = 0; i < slots; i++) {
      sql.append(i == 0 ? "?" : ", ?");
    }
    return sql.toString();
  }
}
