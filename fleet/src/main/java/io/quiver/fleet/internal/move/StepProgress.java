package io.quiver.fleet.internal.move;

/**
 * What a long step of a move (a copy, a verification) tells as it goes: its total once, before
 * the first unit, then how many units are done after each batch.
 */
public interface StepProgress {
  /** Tells nothing: a step whose progress no one follows. */
  StepProgress IGNORED = new StepProgress() {
    @Override
    public void total(long total) {
    }

    @Override
    public void done(long done) {
    }
  };

  /** The step will do {@code total} units (rows, chunks). */
  void total(long total);

  /** {@code done} units are done so far. */
  void done(long done);
}
