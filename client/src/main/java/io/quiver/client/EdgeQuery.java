package io.quiver.client;

import java.util.StringJoiner;

/**
 * Which page of edges to read. Immutable; each {@code with…} answers a copy.
 *
 * <pre>{@code EdgeQuery.newestFirst().limit(20).hydrate(true)}</pre>
 */
public record EdgeQuery(int limit, String after, int offset, boolean ascending, Long minSeq, Long maxSeq,
    boolean hydrate, boolean archived) {

  public static EdgeQuery newestFirst() {
    return new EdgeQuery(50, null, 0, false, null, null, false, false);
  }

  public static EdgeQuery oldestFirst() {
    return new EdgeQuery(50, null, 0, true, null, null, false, false);
  }

  /** The same page of the archived edges instead of the list. */
  public EdgeQuery archived(boolean onlyArchived) {
    return new EdgeQuery(limit, after, offset, ascending, minSeq, maxSeq, hydrate, onlyArchived);
  }

  public EdgeQuery limit(int newLimit) {
    return new EdgeQuery(newLimit, after, offset, ascending, minSeq, maxSeq, hydrate, archived);
  }

  public EdgeQuery after(String cursor) {
    return new EdgeQuery(limit, cursor, offset, ascending, minSeq, maxSeq, hydrate, archived);
  }

  public EdgeQuery offset(int newOffset) {
    return new EdgeQuery(limit, after, newOffset, ascending, minSeq, maxSeq, hydrate, archived);
  }

  public EdgeQuery sequenceBetween(Long min, Long max) {
    return new EdgeQuery(limit, after, offset, ascending, min, max, hydrate, archived);
  }

  public EdgeQuery hydrate(boolean withNodes) {
    return new EdgeQuery(limit, after, offset, ascending, minSeq, maxSeq, withNodes, archived);
  }

  String queryString() {
    StringJoiner query = new StringJoiner("&", "?", "");
    query.add("limit=" + limit);
    query.add("order=" + (ascending ? "asc" : "desc"));
    if (after != null) {
      query.add("after=" + java.net.URLEncoder.encode(after, java.nio.charset.StandardCharsets.UTF_8));
    }
    if (offset > 0) {
      query.add("offset=" + offset);
    }
    if (minSeq != null) {
      query.add("minSeq=" + minSeq);
    }
    if (maxSeq != null) {
      query.add("maxSeq=" + maxSeq);
    }
    if (hydrate) {
      query.add("hydrate=true");
    }
    if (archived) {
      query.add("state=archived");
    }
    return query.toString();
  }
}
