package io.quiver.client;

import java.util.List;

/**
 * A page of a set operation over edge lists.
 *
 * @param targets target IDs in ascending order
 * @param next where the next page starts; null on the last page
 */
public record TargetPage(List<Long> targets, Long next) {}
