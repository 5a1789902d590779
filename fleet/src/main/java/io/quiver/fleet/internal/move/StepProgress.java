package io.quiver.fleet.internal.move;

/**
 * What a long step of a move (a copy, a verification) tells as it goes: its total once, before
 * the first unit, then how many units are done after each batch.
 */
interface StepProgress {
  /** The step will do {@code total} units (rows, chunks). */
  void total(long total);

  /** {@code done} units are done so far. */
  void done(long done);
}
