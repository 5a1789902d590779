package io.quiver.client;

import java.util.List;

/** A batch read's answer: the edges found (active or archived) and the ones asked for that have none, in request order. */
public record EdgeBatch(List<Edge> edges, List<EdgeKey> missing) {}
