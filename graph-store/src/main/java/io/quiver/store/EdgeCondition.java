package io.quiver.store;

/**
 * What an edge write requires of the edge it finds, as TAO's write preconditions: nothing, no edge
 * ({@code If-None-Match: *} — add only if absent, so two clients racing to add one edge cannot both
 * believe they made it), an edge whatever its sequence ({@code If-Match: *} — update only what is
 * there), or an edge at a given sequence ({@code If-Match: "5"}). An edge is there when it
 * is active or archived; a removed one is absent. Checked under the edge row's lock, so the
 * condition and the write are one step; an edge that fails it is not written, and the write fails
 * VERSION_CONFLICT with the edge as it is.
 *
 * @param expect what is required
 * @param sequence the sequence required ({@link Expect#AT_SEQUENCE} only)
 */
public record EdgeCondition(Expect expect, long sequence) {
  /** No condition. */
  public static final EdgeCondition NONE = new EdgeCondition(Expect.ANY, 0);
  /** No edge there (absent, or removed). */
  public static final EdgeCondition ABSENT = new EdgeCondition(Expect.ABSENT, 0);
  /** An edge there (active or archived), whatever its sequence. */
  public static final EdgeCondition PRESENT = new EdgeCondition(Expect.PRESENT, 0);

  /** What an edge write requires. */
  public enum Expect {
    ANY,
    ABSENT,
    PRESENT,
    AT_SEQUENCE
  }

  /** An edge there (active or archived) at {@code sequence}. */
  public static EdgeCondition atSequence(long sequence) {
    return new EdgeCondition(Expect.AT_SEQUENCE, sequence);
  }

  /** Whether an edge found as {@code present} (there or not) at {@code foundSequence} meets this condition. */
  public boolean metBy(boolean present, long foundSequence) {
    return switch (expect) {
      case ANY -> true;
      case ABSENT -> !present;
      case PRESENT -> present;
      case AT_SEQUENCE -> present && foundSequence == sequence;
    };
  }
}
