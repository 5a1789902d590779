package io.quiver.store;

import java.util.List;

/**
 * A page of the change log: its events (each shard's in position order; across shards, by write
 * time, which orders nothing), and the cursor after the last of them — the one given when there
 * were none.
 */
public record ChangePage(List<ChangeEvent> events, ChangeCursor cursor) {
  public ChangePage {
    events = List.copyOf(events);
  }
}
