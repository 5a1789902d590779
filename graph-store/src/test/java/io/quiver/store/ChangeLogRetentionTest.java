package io.quiver.store;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.assertj.core.api.Assertions.catchThrowable;

import io.quiver.core.GraphException;
import io.quiver.core.testing.Await;
import io.quiver.store.testing.StoreFixture;
import java.time.Duration;
import java.util.Set;
import org.junit.jupiter.api.Test;

/**
 * The change log's retention, with a backend of its own whose logs keep two changes per shard and
 * are trimmed every 50 ms (it must hold the hosts' drain leases, so no other backend runs beside it).
 */
class ChangeLogRetentionTest {

  @Test
  void aCursorOlderThanTheRetainedLog_isGone_namingHowFarBackItReaches() throws Exception {
    try (StoreFixture trimming = StoreFixture.withChangeLog(new ChangeLogSettings(true, Duration.ofDays(7), 2,
        Duration.ofMillis(50)))) {
      // Three changes to one shard's log; only the newest two are kept.
      Node first = trimming.store.createNode("user", json("{\"name\": \"t\"}"), null).await();
      int shard = first.id().shard();
      for (int i = 0; i < 3; i++) {
        trimming.store.createNode("user", json("{\"name\": \"t\"}"), first.id()).await();
      }
      ChangeLog trimmed = trimming.backend.changeLog();
      Await.until("the shard's log trimmed to its bound", Duration.ofSeconds(10), () -> {
        try {
          trimmed.read(ChangeCursor.START, Set.of(shard), Set.of(), 10).await();
          return false;
        } catch (GraphException gone) {
          return gone.code() == GraphException.Code.GONE;
        }
      });
      assertThatThrownBy(() -> trimmed.read(ChangeCursor.START, Set.of(shard), Set.of(), 10).await())
          .isInstanceOf(GraphException.class)
          .hasMessageContaining("reaches back to position")
          .satisfies(failure -> assertThat(((GraphException) failure).details()).containsKey("oldest"));
      long oldest = (Long) ((GraphException) catchThrowable(
          () -> trimmed.read(ChangeCursor.START, Set.of(shard), Set.of(), 10).await())).details().get("oldest");
      ChangePage kept = trimmed.read(ChangeCursor.START.after(shard, oldest - 1), Set.of(shard), Set.of(), 10).await();
      assertThat(kept.events()).as("from just before the oldest kept: answered").isNotEmpty();
    }
  }

}
