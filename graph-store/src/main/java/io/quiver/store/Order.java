package io.quiver.store;

/** The direction of an edge list by sequence. */
public enum Order {
  /** Newest (highest sequence) first; the default. */
  DESC,
  ASC
}
