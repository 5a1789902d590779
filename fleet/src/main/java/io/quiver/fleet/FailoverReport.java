package io.quiver.fleet;

import java.util.List;

/**
 * One failover or switchover, as recorded: which host, from which primary to which replica, when, how long the
 * primary had not answered when it was declared failed, how long its shards refused writes, where
 * the promoted replica stood ({@code position}, its GTID position), and the replicas pointed at it.
 *
 * @param at when the failover began, ISO-8601 in UTC
 * @param planned a switchover an operator asked for (the old primary, live, became a replica), not a
 *     failure; its {@code unreachableMs} is 0
 */
public record FailoverReport(String host, String from, String to, String at, boolean planned, long unreachableMs,
    long writesRefusedMs, String position, List<String> repointed) {
  public FailoverReport {
    repointed = List.copyOf(repointed);
  }
}
