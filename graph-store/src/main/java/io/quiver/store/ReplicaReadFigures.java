package io.quiver.store;

/**
 * What stale-tolerant reads ({@link GraphStore#staleTolerant()}) did since start.
 *
 * @param answeredByReplica reads a replica answered: sent there because the primary was down, or
 *     hedged there and answered first
 * @param hedged reads also sent to a replica because the primary had not answered within the hedge
 *     delay, or failed as unavailable
 */
public record ReplicaReadFigures(long answeredByReplica, long hedged) {}
