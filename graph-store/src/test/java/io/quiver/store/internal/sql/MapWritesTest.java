package io.quiver.store.internal.sql;

import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.GraphException;
import io.quiver.store.shard.Host;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapChange;
import io.quiver.store.shard.ShardRange;
import io.quiver.store.shard.ShardSpan;
import io.quiver.store.shard.ShardState;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/**
 * The fence of a shard move's cut-over: a server acknowledges a shard-map version only once no
 * write begun under an older one can still commit, and refuses a write the current map no longer
 * allows on its route.
 */
class MapWritesTest {
  private static final ShardMap WRITABLE = new ShardMap(1,
      Map.of("h1", new Host("h1", "10.0.0.1:3306", List.of()), "h2", new Host("h2", "10.0.0.2:3306", List.of())),
      List.of(new ShardRange(0, 3, "h1")), List.of(new ShardSpan(0, 3)), Map.of());
  private static final ShardRoute ROUTE = new ShardRoute(2, "h1", null, true);

  private final AtomicReference<ShardMap> current = new AtomicReference<>(WRITABLE);
  private final AtomicLong acknowledged = new AtomicLong(-1);
  private final MapWrites writes = new MapWrites(current::get, acknowledged::set);

  private void publish(ShardMapChange change) {
    current.set(change.applyTo(current.get()).withVersion(current.get().version() + 1));
    writes.evaluate();
  }

  @Test
  void aWriteBegunUnderTheOldMap_holdsTheAcknowledgementBackUntilTheDatabaseHasAnswered() {
    Promise<String> commit = Promise.promise();
    Future<String> inFlight = writes.write(ROUTE, commit::future);

    publish(new ShardMapChange.SetState(new ShardSpan(2, 2), ShardState.READ_ONLY));
    assertThat(acknowledged.get()).as("a write begun under version 1 may still commit").isEqualTo(1);

    commit.complete("committed");
    assertThat(inFlight.result()).isEqualTo("committed");
    assertThat(acknowledged.get()).as("nothing begun under version 1 is in flight").isEqualTo(2);
  }

  @Test
  void aWriteOnAShardTheMapHasMadeReadOnlyOrMoved_isRefusedWithoutRunning() {
    publish(new ShardMapChange.SetState(new ShardSpan(2, 2), ShardState.READ_ONLY));
    boolean[] ran = {false};
    Future<Object> refused = writes.write(ROUTE, () -> {
      ran[0] = true;
      return Future.succeededFuture();
    });
    assertThat(ran[0]).isFalse();
    assertThat(((GraphException) refused.cause()).code()).isEqualTo(GraphException.Code.UNAVAILABLE);
    assertThat(refused.cause()).hasMessageContaining("shard 2 is read-only");

    publish(new ShardMapChange.MoveShards(new ShardSpan(2, 2), "h2"));
    Future<Object> moved = writes.write(ROUTE, Future::succeededFuture);
    assertThat(moved.cause()).hasMessageContaining("shard 2 has moved to h2");
    assertThat(acknowledged.get()).isEqualTo(3);
  }

  @Test
  void writesOnOtherShards_goOnWhileOneIsReadOnly() {
    publish(new ShardMapChange.SetState(new ShardSpan(2, 2), ShardState.READ_ONLY));
    Future<String> other = writes.write(new ShardRoute(3, "h1", null, true), () -> Future.succeededFuture("ok"));
    assertThat(other.result()).isEqualTo("ok");
  }
}
