package io.quiver.client;

/** One edge list: the edges of {@code type} from {@code from}, as a set operation names it. */
public record EdgeList(long from, String type) {}
