package io.quiver.fleet.internal.move;

import io.quiver.store.shard.ShardSpan;

/**
 * A move's document in ZooKeeper: what moves where, the phase it has reached and whether an
 * operator asked to cancel it. Immutable; each step saves a copy.
 */
record MoveState(String id, ShardSpan shards, String from, String to, MovePhase phase, long startedAtMillis,
    boolean cancelled) {

  MoveState at(MovePhase next) {
    return new MoveState(id, shards, from, to, next, startedAtMillis, cancelled);
  }

  MoveState cancelling() {
    return new MoveState(id, shards, from, to, phase, startedAtMillis, true);
  }

  /** Whether a request to move {@code span} to {@code host} names this move (and so resumes it). */
  boolean is(ShardSpan span, String host) {
    return shards.equals(span) && to.equals(host);
  }
}
