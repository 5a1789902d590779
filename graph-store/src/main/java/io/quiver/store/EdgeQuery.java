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
 * @param state which edges to list: the active ones (the list) by default, or the archived ones
 */
public record EdgeQuery(int limit, Cursor after, int offset, Order order, Long minSequence, Long maxSequence,
    EdgeState state) {
  public static final int DEFAULT_LIMIT = 50;
  public static final int MAX_LIMIT = 1000;
  public static final int MAX_OFFSET = 100_000;

  public EdgeQuery {
    requireLimit(limit);
    if (offset < 0 || offset > MAX_OFFSET) {
      throw GraphException.invalid("'offset' must be between 0 and " + MAX_OFFSET + ", got " + offset);
    }
    if (order == null) {
      order = Order.DESC;
    }
    if (state == null) {
      state = EdgeState.ACTIVE;
    }
    if (minSequence != null && maxSequence != null && minSequence > maxSequence) {
      throw GraphException.invalid("minSeq " + minSequence + " is above maxSeq " + maxSequence);
    }
  }

  /** A query of the active edges. */
  public EdgeQuery(int limit, Cursor after, int offset, Order order, Long minSequence, Long maxSequence) {
    this(limit, after, offset, order, minSequence, maxSequence, EdgeState.ACTIVE);
  }

  /** Refuses a page size outside 1..{@link #MAX_LIMIT}, as every read of a list does. */
  public static int requireLimit(int limit) {
    if (limit < 1 || limit > MAX_LIMIT) {
      throw GraphException.invalid("'limit' must be between 1 and " + MAX_LIMIT + ", got " + limit);
    }
    return limit;
  }

  public static EdgeQuery firstPage(int limit) {
    return new EdgeQuery(limit, null, 0, Order.DESC, null, null);
  }

  public EdgeQuery after(Cursor cursor) {
    return new EdgeQuery(limit, cursor, offset, order, minSequence, maxSequence, state);
  }

  /** The same query over the edges in {@code listed} state. */
  public EdgeQuery in(EdgeState listed) {
    return new EdgeQuery(limit, after, offset, order, minSequence, maxSequence, listed);
  }
}
