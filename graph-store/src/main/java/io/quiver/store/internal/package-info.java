/**
 * How graph-store works, hidden from every other module: the backend's wiring
 * ({@link io.quiver.store.internal.DefaultBackend}), the node and edge stores over the table
 * classes, the one change feed, the repairs' scans ({@code BackendRepairs}), the inverse write a
 * waiting request applies at once, unique values' claims and their repair ({@code UniqueClaims},
 * {@code UniqueRepair}), and bulk imports. Subpackages: {@code sql} (pools, routing, transactions, errors),
 * {@code table} (one class per table kind), {@code outbox} (typed work and its drainer).
 */
package io.quiver.store.internal;
