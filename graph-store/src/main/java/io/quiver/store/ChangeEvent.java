package io.quiver.store;

import java.time.Instant;

/**
 * One committed change as the change log answers it ({@link ChangeLog}).
 *
 * @param shard the shard whose log holds it
 * @param position its position in that shard's log: positions of one shard increase in the order
 *     its changes became visible, and two changes of one node or one edge list in commit order
 * @param writtenAt when the write that made it ran (its transaction's write time)
 * @param typeName the node or edge type it concerns
 * @param body the event as a JSON object: {@code kind} ({@code node} or {@code edge}; {@code failover}
 *     for the marker where a failover made the positions jump, with nothing but {@code change}), {@code change}
 *     (a node's {@code created}, {@code updated} or {@code deleted}; an edge copy's {@code added},
 *     {@code updated}, {@code archived} or {@code removed}), the IDs ({@code id}, or {@code from},
 *     {@code type}, {@code to}), a node's {@code version} or an edge's {@code sequence} and
 *     {@code listVersion}, an edge's {@code copy} ({@code forward} or {@code inverse}) and
 *     {@code state}, and the after-image {@code data} (absent after a deletion or removal)
 * @param cursor where a consumer stands once it has processed this event
 */
public record ChangeEvent(int shard, long position, Instant writtenAt, String typeName, String body,
    ChangeCursor cursor) {}
