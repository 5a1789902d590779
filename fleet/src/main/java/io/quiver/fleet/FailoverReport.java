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
 * @param oldPrimary what became of the old primary: {@link #SILENT} (not heard from since; read-only
 *     the moment it answers), {@link #REPLICA} (it rejoined as a replica of the new primary: every
 *     transaction it logged is the new primary's too), {@link #DIVERGED} (it logged transactions the
 *     new primary never had — writes answered "may or may not" — so it is left out, read-only, for an
 *     operator to inspect and reseed)
 */
public record FailoverReport(String host, String from, String to, String at, boolean planned, long unreachableMs,
    long writesRefusedMs, String position, List<String> repointed, String oldPrimary) {
  public static final String SILENT = "silent";
  public static final String REPLICA = "replica";
  public static final String DIVERGED = "diverged";

  public FailoverReport {
    repointed = List.copyOf(repointed);
    // Records written before the old primary's fate was kept: silent until it is settled.
    oldPrimary = oldPrimary == null ? SILENT : oldPrimary;
  }

  /** The same record, its old primary settled as {@code fate}. */
  public FailoverReport withOldPrimary(String fate) {
    return new FailoverReport(host, from, to, at, planned, unreachableMs, writesRefusedMs, position, repointed, fate);
  }
}
