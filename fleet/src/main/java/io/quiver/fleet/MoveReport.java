package io.quiver.fleet;

import java.util.List;

/**
 * What a finished shard move did.
 *
 * @param id the move's id, as its state and log lines name it
 * @param shards the shards moved, as {@code "4-5"}
 * @param from the host they were on
 * @param to the host they are on now (or are moving to, when the run stopped before its end)
 * @param reached {@code done}, or the phase the run stopped before as asked ({@code verify}, say)
 * @param rowsCopied rows copied from the source's snapshot (replicated changes not counted)
 * @param chunksCompared key ranges whose checksums were compared on both hosts, every one equal
 * @param writesRefusedMillis how long the moved shards refused writes: from the read-only map's
 *     publication to the flipped map's
 * @param retired the source's databases, kept under these names until {@code shards drop-retired}
 * @param millis the whole move, from its start (or resumption) to its report
 */
public record MoveReport(String id, String shards, String from, String to, String reached, long rowsCopied, long chunksCompared,
    long writesRefusedMillis, List<String> retired, long millis) {}
