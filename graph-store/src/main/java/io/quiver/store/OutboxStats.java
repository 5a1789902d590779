package io.quiver.store;

/**
 * A host's outboxes as last measured by the server draining them.
 *
 * @param pending entries waiting to be applied
 * @param parked entries set aside after repeated failures, each with its error
 * @param oldestPendingAgeMillis age of the oldest pending entry; 0 when none is pending
 * @param changeLogLagMillis age of the oldest committed change the host's change logs have not yet
 *     numbered, so that no consumer can read it yet; 0 when every change is readable. Written from
 *     the binary log: how long the host's tailer has held changes it read and has not yet logged —
 *     and whose inverses it has not yet written — or, while its tail is down, how long since it
 *     stopped
 */
public record OutboxStats(long pending, long parked, long oldestPendingAgeMillis, long changeLogLagMillis) {}
