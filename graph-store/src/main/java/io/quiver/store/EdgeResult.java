package io.quiver.store;


/**
 * What an edge write did.
 *
 * @param edge the edge as written; null for a removal
 * @param inverse where the inverse copy stands
 * @param change what the write did to the forward copy
 * @param token what a later read carries to observe this write, its inverse copy included
 *     ({@link ReadToken}): what an inverse still pending waits in (its outbox entry, or the copy
 *     written), nothing otherwise
 */
public record EdgeResult(Edge edge, Inverse inverse, Change change, ReadToken token) {

  /** A write that left nothing for a read to apply. */
  public EdgeResult(Edge edge, Inverse inverse, Change change) {
    this(edge, inverse, change, ReadToken.EMPTY);
  }

  /** What a write did to the edge it names. */
  public enum Change {
    /** An add of an edge that was not there. */
    CREATED,
    /** An add that changed the sequence or the data of an edge that was there. */
    UPDATED,
    /** An add that left the edge's sequence and data as they were (its write time still moves). */
    UNCHANGED,
    /** A removal of an edge that was there. */
    REMOVED,
    /** A removal of an edge that was not there. */
    ABSENT,
    /** An archive of an active edge: out of lists and counts, its row kept. */
    ARCHIVED,
    /** A restore of an archived edge: listed again with its sequence and data. */
    RESTORED
  }

  public enum Inverse {
    /** The edge type has no inverse (or the edge is a symmetric self-loop). */
    NONE,
    /** Recorded in the outbox; it will be written shortly. */
    PENDING,
    /** Written before the answer. */
    APPLIED,
    /**
     * The inverse's node is gone (deleted): the edge was removed again from both copies before the
     * answer, by the delete rule. The answer's edge is what the forward write wrote; it is no
     * longer there.
     */
    REMOVED
  }
}
