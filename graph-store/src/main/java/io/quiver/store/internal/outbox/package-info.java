/**
 * Work a write leaves for after its commit, never lost: typed operations
 * ({@link io.quiver.store.internal.outbox.OutboxOp}, stored with their kind), one handler per kind
 * ({@link io.quiver.store.internal.outbox.InverseWriter} for inverse edges,
 * {@link io.quiver.store.internal.outbox.Cascades} for cascades), and the drain in small
 * parts: host leases, the per-host drainer, the retry policy, tombstone collection and the
 * figures. {@link io.quiver.store.internal.outbox.InverseRepair} finds and fixes copies that differ.
 * Under the same host leases, the change log's upkeep: its numbering and trim
 * ({@code ChangeSequencer}) and, when it is written from the binary log, each host's
 * {@code ChangeTailer}, which then writes the inverses too (a write leaves no entry for them), with
 * {@code TailBarrier} for the repair to wait on it.
 */
package io.quiver.store.internal.outbox;
