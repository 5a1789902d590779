package io.quiver.store.internal.outbox;

/**
 * A unit of work a write leaves in its shard's outbox, in its own transaction, for the drainer to
 * carry out after commit. Each kind is stored with an explicit {@link Kind} and carried out by
 * one handler; a new kind of work (a unique-key release, say) is a new case here and a new
 * handler, never a magic value in another kind's columns.
 */
public sealed interface OutboxOp permits InverseOp, CascadeOp, UniqueReleaseOp {

  Kind kind();

  /** The kinds of outbox work, with the code each is stored under. */
  enum Kind {
    /** Write one copy of an edge to match the other ({@link InverseOp}). */
    INVERSE_EDGE(1),
    /** Remove every edge from a deleted node ({@link CascadeOp}). */
    CASCADE_DELETE(2),
    /** Archive every active edge from a node ({@link CascadeOp}). */
    CASCADE_ARCHIVE(3),
    /** Restore every archived edge from a node ({@link CascadeOp}). */
    CASCADE_RESTORE(4),
    /** Release a unique value a node no longer holds ({@link UniqueReleaseOp}). */
    UNIQUE_RELEASE(5);

    private final int code;

    Kind(int code) {
      this.code = code;
    }

    public int code() {
      return code;
    }

    public static Kind of(int code) {
      for (Kind kind : values()) {
        if (kind.code == code) {
          return kind;
        }
      }
      throw new IllegalArgumentException("no outbox kind has code " + code);
    }
  }
}
