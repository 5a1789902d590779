package io.quiver.store.internal.outbox;

import io.quiver.store.internal.table.OutboxTable;
import java.util.function.Function;

/**
 * A unit of work a write leaves in its shard's outbox, in its own transaction, for the drainer to
 * carry out after commit. Each kind is stored with an explicit {@link Kind}, says itself how it
 * is kept in the outbox's columns ({@link #columns}, and its kind's decoder to read it back), and
 * is carried out by one handler ({@link OutboxHandlers}); a new kind of work is a new class, a
 * new case here and a new handler, never a magic value in another kind's columns.
 */
public sealed interface OutboxOp permits InverseOp, CascadeOp, UniqueReleaseOp {

  Kind kind();

  /** This operation as the outbox stores it. */
  OutboxTable.Columns columns();

  /** The operation stored as {@code columns}, by the decoder of the kind they name. */
  static OutboxOp of(OutboxTable.Columns columns) {
    return Kind.of(columns.kind()).decoder.apply(columns);
  }

  /** The kinds of outbox work, with the code each is stored under and how it is read back. */
  enum Kind {
    /** Write one copy of an edge to match the other ({@link InverseOp}). */
    INVERSE_EDGE(1, InverseOp::of),
    /** Remove every edge from a deleted node ({@link CascadeOp}). */
    CASCADE_DELETE(2, CascadeOp::of),
    /** Archive every active edge from a node ({@link CascadeOp}). */
    CASCADE_ARCHIVE(3, CascadeOp::of),
    /** Restore every archived edge from a node ({@link CascadeOp}). */
    CASCADE_RESTORE(4, CascadeOp::of),
    /** Release a unique value a node no longer holds ({@link UniqueReleaseOp}). */
    UNIQUE_RELEASE(5, UniqueReleaseOp::of);

    private final int code;
    private final Function<OutboxTable.Columns, OutboxOp> decoder;

    Kind(int code, Function<OutboxTable.Columns, OutboxOp> decoder) {
      this.code = code;
      this.decoder = decoder;
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
