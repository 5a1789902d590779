package io.quiver.fleet;

/**
 * The shard move under way, as ZooKeeper holds it: any server can read it, and a rerun of the
 * move on any server resumes it from {@code phase}.
 *
 * @param runner the server running it now, or null when none is (it died, or was stopped)
 * @param cancelled set when an operator asked to cancel; the runner stops at its next step
 */
public record ShardMoveStatus(String id, String shards, String from, String to, String phase, long startedAtMillis,
    String runner, boolean cancelled) {}
