package io.quiver.store;

import java.util.List;
import java.util.Objects;

/**
 * One page of an edge list; {@code next} is null on the last page. A value, equal to another page
 * with the same edges and cursor — a class rather than a record only for its one slot:
 * {@link #attachment()}, which the layer that answers the page may fill while this page object
 * lives. A cached window keeps the page it answered and answers the same object again, so the API
 * keeps the page's rendered bytes there: they live exactly as long as the window that holds the
 * page, and go with it, without a side table (whose weak keys kept them into the next collection).
 * Filled by a benign race, as {@code String}'s hash is: two threads may each compute it, either
 * answer is right. Equality ignores it.
 */
public final class EdgePage {
  private final List<Edge> edges;
  private final Cursor next;
  private volatile Object attachment;

  public EdgePage(List<Edge> edges, Cursor next) {
    this.edges = List.copyOf(edges);
    this.next = next;
  }

  public List<Edge> edges() {
    return edges;
  }

  /** Where the next page starts; null on the last page. */
  public Cursor next() {
    return next;
  }

  /** What the answering layer attached to this page object, or null. */
  public Object attachment() {
    return attachment;
  }

  /** Attaches {@code value} to this page object, replacing what was attached. */
  public void attach(Object value) {
    attachment = value;
  }

  @Override
  public boolean equals(Object other) {
    return other instanceof EdgePage page && edges.equals(page.edges) && Objects.equals(next, page.next);
  }

  @Override
  public int hashCode() {
    return 31 * edges.hashCode() + Objects.hashCode(next);
  }

  @Override
  public String toString() {
    return "EdgePage[edges=" + edges + ", next=" + next + "]";
  }
}
