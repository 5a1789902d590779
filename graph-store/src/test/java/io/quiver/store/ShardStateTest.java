package io.quiver.store;

import static io.quiver.store.testing.StoreFixture.json;
import static org.assertj.core.api.Assertions.assertThat;

import io.quiver.core.testing.Await;
import io.quiver.core.GraphException.Code;
import io.quiver.core.GraphException;
import io.quiver.store.shard.ShardMap;
import io.quiver.store.shard.ShardMapStore;
import io.quiver.store.shard.ShardState;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;
import io.vertx.core.Future;
import java.time.Duration;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

/** A running store follows shard state changes published in ZooKeeper, without a restart. */
@ExtendWith(GraphInvariants.class)
class ShardStateTest {
  private static StoreFixture fixture;
  private static ShardMapStore maps;

  @BeforeAll
  static void start() throws Exception {
    fixture = new StoreFixture();
    maps = new ShardMapStore(TestBackend.get().curator(), TestBackend.SHARD_MAP_PATH);
  }

  @AfterAll
  static void stop() {
    fixture.close();
  }

  private static void publishState(int shard, ShardState state) throws Exception {
    ShardMap current = maps.read().orElseThrow();
    ShardMap next = current.withState(shard, state).withVersion(current.version() + 1);
    maps.publish(next);
    Await.until("the store follows the map", Duration.ofSeconds(2),
        () -> fixture.backend.shardMap().version() >= next.version());
    assertThat(fixture.backend.shardMap().version()).as("the store follows the map").isEqualTo(next.version());
  }

  private static Code failureCode(Future<?> future) {
    Throwable cause = future.transform(done -> Future.succeededFuture(done.cause())).await();
    assertThat(cause).isInstanceOf(GraphException.class);
    return ((GraphException) cause).code();
  }

  @Test
  void readOnlyShard_refusesWritesButServesReads_offlineRefusesBoth_andBothRecover() throws Exception {
    GraphStore store = fixture.store;
    Node user = store.createNode("user", json("{\"name\": \"ro\"}"), null).await();
    int shard = user.id().shard();
    try {
      publishState(shard, ShardState.READ_ONLY);
      assertThat(failureCode(store.createNode("user", json("{\"name\": \"x\"}"), user.id()))).isEqualTo(Code.UNAVAILABLE);
      assertThat(failureCode(store.updateNode(user.id(), json("{\"bio\": \"b\"}"), GraphStore.ANY_VERSION)))
          .isEqualTo(Code.UNAVAILABLE);
      assertThat(store.getNode(user.id()).await()).isEqualTo(user);
      for (int i = 0; i < 50; i++) {
        int picked = store.createNode("user", json("{\"name\": \"elsewhere\"}"), null).await().id().shard();
        assertThat(picked).as("new nodes avoid the read-only shard").isNotEqualTo(shard);
      }

      publishState(shard, ShardState.OFFLINE);
      assertThat(failureCode(store.getNode(user.id()))).isEqualTo(Code.UNAVAILABLE);
    } finally {
      publishState(shard, ShardState.READ_WRITE);
    }
    assertThat(store.updateNode(user.id(), json("{\"bio\": \"back\"}"), GraphStore.ANY_VERSION).await().version())
        .isEqualTo(2);
  }
}
