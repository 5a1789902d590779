package io.quiver.store;

import io.quiver.core.GraphException;

/**
 * Which page of an edge list to read.
 *
 * @param limit edges per page, 1..{@link #MAX_LIMIT}
 * @param after continue after this position; null for the first page
 * @param offset edges to skip (after the cursor, if any)
 * @param order by sequence, newest first by default
 * @param minSequence lowest sequence to include; null for no bound
 * @param maxSequence highest sequence to include; null for no bound
 */
public record EdgeQuery(int limit, Cursor after, int offset, Order order, Long minSequence, Long maxSequence) {
  public static final int DEFAULT_LIMIT = 50;
  public static final int MAX_LIMIT = 1000;
  public static final int MAX_OFFSET = 100_000;

  public EdgeQuery {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw GraphException.invalid("'limit' must be between 1 and " + MAX_LIMIT + ", got " + limit);
    }
    if (offset < 0 || offset > MAX_OFFSET) {
      throw GraphException.invalid("'offset' must be between 0 and " + MAX_OFFSET + ", got " + offset);
    }
    if (order == null) {
      order = Order.DESC;
    }
    if (minSequence != null && maxSequence != null && minSequence > maxSequence) {
      throw GraphException.invalid("minSeq " + minSequence + " is above maxSeq " + maxSequence);
    }
  }

  public static EdgeQuery firstPage(int limit) {
    return new EdgeQuery(limit, null, 0, Order.DESC, null, null);
  }

  public EdgeQuery after(Cursor cursor) {
    return new EdgeQuery(limit, cursor, offset, order, minSequence, maxSequence);
  }
}
