package io.quiver.store;

import io.vertx.core.Future;
import java.util.Set;

/**
 * The durable change log every shard keeps of its committed changes, as consumers outside the
 * process read it: a search index, a notification service, a warehouse. Unlike the in-process
 * {@link ChangeFeed}, it survives crashes, moves and failovers, and a consumer resumes from a
 * {@link ChangeCursor}.
 */
public interface ChangeLog {
  /** The most events one read answers. */
  int MAX_LIMIT = 1000;

  /**
   * The events after {@code after} on {@code shards} (every shard of the map when empty), of
   * {@code types} only when not empty, at most {@code limit}. GONE when the cursor is older than a
   * shard's retained log (the message names how far back it reaches); INVALID_ARGUMENT for a shard
   * not in the map or a limit outside 1..{@link #MAX_LIMIT}.
   */
  Future<ChangePage> read(ChangeCursor after, Set<Integer> shards, Set<String> types, int limit);

  /**
   * The cursor at the end of the log of {@code shards} (every shard of the map when empty) now: a
   * consumer starting from it sees only what is logged after, as one that starts "from now".
   */
  Future<ChangeCursor> end(Set<Integer> shards);
}
