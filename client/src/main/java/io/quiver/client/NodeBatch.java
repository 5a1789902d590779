package io.quiver.client;

import java.util.List;

/** The answer to getNodes: the nodes found and the IDs not found, in request order. */
public record NodeBatch(List<Node> nodes, List<Long> missing) {}
