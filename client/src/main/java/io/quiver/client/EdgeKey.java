package io.quiver.client;

/** One edge by its ends and type, as a batch read names it. */
public record EdgeKey(long from, String type, long to) {}
