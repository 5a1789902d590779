/**
 * Inverse edges: eventual, never lost. A forward edge write and an outbox entry for its inverse
 * commit in one transaction on the FROM shard ({@link io.quiver.outbox.Outbox}); an applier
 * drains each host's outboxes, one server per host at a time, and writes the inverses on their
 * shards ({@link io.quiver.outbox.InverseApplier}, {@link io.quiver.outbox.InverseWriter}); a
 * repair job finds and fixes copies that differ ({@link io.quiver.outbox.InverseRepair}).
 */
package io.quiver.outbox;
