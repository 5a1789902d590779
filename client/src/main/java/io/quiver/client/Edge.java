package io.quiver.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/**
 * An edge from one node to another, ordered among its siblings by {@code sequence}.
 *
 * @param node the target node, when the page was read with {@code hydrate}; else null
 * @param archived whether the edge is archived: out of lists and counts, still read by getEdge
 */
public record Edge(long from, String type, long to, long sequence, ObjectNode data, Instant updatedAt, Node node,
    boolean archived) {}
