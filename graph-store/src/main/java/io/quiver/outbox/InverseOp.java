package io.quiver.outbox;

import io.quiver.edge.EdgeRow;
import io.quiver.id.NodeId;

/**
 * One operation to apply to one copy of an edge: set the row (from, to) of edge type
 * {@code edgeTypeId} to {@code row}, if {@code row} outranks what the copy holds.
 */
public record InverseOp(int edgeTypeId, NodeId from, NodeId to, EdgeRow row) {}
