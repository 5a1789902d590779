package io.quiver.fleet;

/**
 * One step of a shard move, as it reports itself: the phase, how far it is ({@code done} of
 * {@code total}, in the phase's unit — rows copied, chunks compared; {@code total} 0 when the
 * phase has no measure) and a line for people.
 */
public record MoveProgress(String phase, long done, long total, String message) {}
