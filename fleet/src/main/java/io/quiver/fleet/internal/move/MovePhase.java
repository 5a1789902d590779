package io.quiver.fleet.internal.move;

/**
 * Where a move stands, saved in ZooKeeper before each phase begins, so a rerun resumes there:
 * a phase is either redone whole (the copy) or picks up from what it finds (the others).
 */
enum MovePhase {
  /** The target's databases made afresh and filled from one consistent snapshot of the source. */
  COPY,
  /** Replication from the snapshot's position until the target has caught up. */
  CATCH_UP,
  /** Checksums of every table, chunk by chunk, on both hosts at one position. */
  VERIFY,
  /** Read-only, every server's acknowledgement, the last changes, the map flipped to the target. */
  CUT_OVER,
  /** The source's databases renamed aside: past here a move is done and cannot be cancelled. */
  CLEANUP;

  String jsonName() {
    return name().toLowerCase(java.util.Locale.ROOT).replace('_', '-');
  }

  /** {@code catch-up}, {@code verify}, {@code cut-over}: the phases a move may be asked to stop before. */
  static MovePhase fromJsonName(String name) {
    for (MovePhase phase : new MovePhase[] {CATCH_UP, VERIFY, CUT_OVER}) {
      if (phase.jsonName().equals(name)) {
        return phase;
      }
    }
    throw io.quiver.core.GraphException.invalid("a move can stop before catch-up, verify or cut-over, not '" + name + "'");
  }
}
