package io.quiver.store;


/**
 * What an edge write did.
 *
 * @param edge the edge as written; null for a removal
 * @param inverse where the inverse copy stands
 */
public record EdgeResult(Edge edge, Inverse inverse) {
  public enum Inverse {
    /** The edge type has no inverse (or the edge is a symmetric self-loop). */
    NONE,
    /** Recorded in the outbox; it will be written shortly. */
    PENDING,
    /** Written before the answer. */
    APPLIED
  }
}
