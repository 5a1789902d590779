package io.quiver.store.internal.table;

import java.util.Comparator;
import java.util.Objects;

/**
 * One copy of an edge as stored, active or not, and the order in which two versions of a copy
 * are ranked.
 *
 * <h2>Convergence</h2>
 * Both directions of an edge may be written by clients, so the forward and the inverse copy can
 * receive the same operations in different orders, or twice. A copy only ever changes to a
 * version that ranks above the one it holds, and versions are ranked by write time, then state
 * (a delete wins a tie, then an archive), then sequence, then data: a total order, so the copy that has seen a
 * set of operations holds the greatest of them, whatever the order of delivery. Deletes leave
 * tombstones, so a late add cannot resurrect a newer delete (FlockDB's rule).
 *
 * <h2>States</h2>
 * Active; archived (FlockDB's archive, LinkBench's hidden links: the row, its sequence and data
 * kept, but out of lists and counts); deleted (a tombstone). An archive or a restore is one more
 * write of the copy, ranked like any other, so both copies of an edge converge on it too.
 */
public record EdgeRow(long sequence, int state, String data, long updatedUs) {
  public static final int ACTIVE = 1;
  public static final int DELETED = 0;
  public static final int ARCHIVED = 2;

  /** What a copy holds before its first real write: ranks below every operation. */
  public static final EdgeRow ABSENT = new EdgeRow(0, DELETED, null, 0);

  /** A stored row as ranked and counted: {@link #ABSENT} where none is stored (null). */
  public static EdgeRow orAbsent(EdgeRow stored) {
    return stored == null ? ABSENT : stored;
  }

  private static final Comparator<EdgeRow> RANK = Comparator
      .comparingLong(EdgeRow::updatedUs)
      .thenComparing(row -> row.state() == DELETED ? 2 : row.state() == ARCHIVED ? 1 : 0)
      .thenComparingLong(EdgeRow::sequence)
      .thenComparing(EdgeRow::data, Comparator.nullsFirst(Comparator.naturalOrder()));

  public boolean active() {
    return state == ACTIVE;
  }

  /** Active or archived: an edge that exists, listed or not. */
  public boolean live() {
    return state != DELETED;
  }

  /** This copy in another state, keeping its sequence and data, written at {@code updatedUs}. */
  public EdgeRow inState(int newState, long updatedUs) {
    return new EdgeRow(sequence, newState, data, updatedUs);
  }

  /** This copy removed: a tombstone keeping its sequence and data, written at {@code updatedUs}. */
  public EdgeRow removedAt(long updatedUs) {
    return inState(DELETED, updatedUs);
  }

  /** Whether this version would replace {@code stored}. */
  public boolean outranks(EdgeRow stored) {
    return RANK.compare(this, stored) > 0;
  }

  /**
   * Whether a reader could not tell the two copies apart: both dead (a tombstone reads as no edge,
   * whatever its stamp), or the same live version ({@link #sameAs}: state, sequence, data and
   * write time, which reads show as {@code updatedAt}).
   */
  public boolean readsAs(EdgeRow other) {
    return live() || other.live() ? sameAs(other) : true;
  }

  /** Same state, sequence, data and write time. */
  public boolean sameAs(EdgeRow other) {
    return sequence == other.sequence && state == other.state && updatedUs == other.updatedUs
        && Objects.equals(data, other.data);
  }
}
