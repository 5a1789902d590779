package io.quiver.store;

/**
 * What a repair of one edge type found and fixed.
 *
 * @param scanned rows read, in both tables of the pair
 * @param missingInverse active forward edges whose inverse copy was missing
 * @param differing pairs whose two copies differed (state, sequence, data or write time)
 * @param orphanedInverse active inverse edges with no forward copy
 * @param inFlight pairs that differ while an outbox entry that will write one of their copies is
 *     pending: work under way, not damage, and left alone
 * @param fixed copies written to make each pair equal
 */
public record RepairReport(String edgeType, long scanned, long missingInverse, long differing,
    long orphanedInverse, long inFlight, long fixed) {}
