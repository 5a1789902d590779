/**
 * A host's replicas ({@link io.quiver.fleet.internal.replica.Replicas}): seeded from one consistent
 * snapshot of the primary (or resumed from their own position), replicating by GTID, confirming
 * every write before the primary acknowledges it. The failover that promotes one is issue 32's
 * next part.
 */
package io.quiver.fleet.internal.replica;
