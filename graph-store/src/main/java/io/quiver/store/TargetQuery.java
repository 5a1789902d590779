package io.quiver.store;

import io.quiver.core.GraphException;
import java.util.List;
import java.util.Objects;

/**
 * A set operation over edge lists, answered as target IDs: FlockDB's intersection, union and
 * difference ("mutual follows", "friends who liked this pin"), with a page of targets in
 * ascending ID order. Lists are merged as ordered streams, never loaded whole
 * ({@link GraphQueries#combine}).
 *
 * @param operation what to compute
 * @param lists two to {@value #MAX_LISTS} lists; a difference keeps the first list's targets
 *     that none of the others hold
 * @param after continue after this target (the last page's {@link TargetPage#next()}); null
 *     from the start
 * @param limit targets per page, 1 to {@value #MAX_LIMIT}
 */
public record TargetQuery(Operation operation, List<EdgeList> lists, NodeId after, int limit) {
  public static final int MAX_LISTS = 8;
  public static final int MAX_LIMIT = 1000;
  public static final int DEFAULT_LIMIT = 100;

  /** The set operations. */
  public enum Operation {
    /** Targets every list holds. */
    INTERSECTION,
    /** Targets any list holds. */
    UNION,
    /** Targets the first list holds and none of the others does. */
    DIFFERENCE
  }

  /** One edge list: the edges of {@code type} from {@code from}. */
  public record EdgeList(NodeId from, String type) {
    public EdgeList {
      Objects.requireNonNull(from, "from");
      Objects.requireNonNull(type, "type");
    }
  }

  public TargetQuery {
    if (operation == null) {
      throw GraphException.invalid("'operation' must be intersection, union or difference");
    }
    if (lists == null || lists.size() < 2 || lists.size() > MAX_LISTS) {
      throw GraphException.invalid("'lists' must name 2 to " + MAX_LISTS + " edge lists, got "
          + (lists == null ? 0 : lists.size()));
    }
    lists = List.copyOf(lists);
    if (limit < 1 || limit > MAX_LIMIT) {
      throw GraphException.invalid("'limit' must be between 1 and " + MAX_LIMIT + ", got " + limit);
    }
  }
}
