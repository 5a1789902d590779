package io.quiver.store;

import java.util.List;

/**
 * A page of a {@link TargetQuery}'s answer.
 *
 * @param targets in ascending ID order
 * @param next where the next page starts ({@link TargetQuery#after()}); null on the last page
 */
public record TargetPage(List<NodeId> targets, NodeId next) {
  public TargetPage {
    targets = List.copyOf(targets);
  }
}
