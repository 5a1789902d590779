package io.quiver.store.internal.sql;

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

  /**
   * Appends the values, padded to their bucket by repeating the last, to {@code arguments}, and
   * answers the matching placeholders.
   */
  public static String pad(java.util.List<?> values, java.util.List<Object> arguments) {
    int slots = bucket(values.size());
    for (int slot = 0; slot < slots; slot++) {
      arguments.add(values.get(Math.min(slot, values.size() - 1)));
    }
    return placeholders(slots);
  }

  public static String placeholders(int slots) {
    StringBuilder sql = new StringBuilder(slots * 3);
    for (int i = 0; i < slots; i++) {
      sql.append(i == 0 ? "?" : ", ?");
    }
    return sql.toString();
  }
}
