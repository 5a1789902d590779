package io.quiver.client;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;

/** A node: its data carries every field its type defines (stored value, else default). */
public record Node(long id, String type, int shard, ObjectNode data, long version, Instant createdAt,
    Instant updatedAt) {}
