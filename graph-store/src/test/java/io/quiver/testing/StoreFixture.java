package io.quiver.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.schema.SchemaSource;
import io.quiver.shard.ShardMapWatcher;
import io.quiver.store.GraphStore;
import io.vertx.core.Vertx;
import java.time.Duration;

/** A graph store over the test backend, with its own Vert.x and shard map watcher. */
public final class StoreFixture implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public final TestBackend backend = TestBackend.get();
  public final Vertx vertx = Vertx.vertx();
  public final ShardMapWatcher watcher;
  public final GraphStore store;

  public StoreFixture() throws Exception {
    watcher = new ShardMapWatcher(backend.curator(), TestBackend.SHARD_MAP_PATH);
    watcher.start();
    watcher.awaitFirst(Duration.ofSeconds(10));
    store = GraphStore.builder(vertx)
        .pools(backend.poolSettings())
        .shardMaps(watcher)
        .schemas(SchemaSource.fixed(backend.schema()))
        .drainOutboxes(backend.curator(), TestBackend.applierSettings())
        .build();
  }

  /** A JSON object from a literal, for readable test data. */
  public static ObjectNode json(String literal) {
    try {
      return (ObjectNode) MAPPER.readTree(literal);
    } catch (Exception e) {
      throw new IllegalArgumentException(literal, e);
    }
  }

  @Override
  public void close() {
    store.close().await();
    watcher.close();
    vertx.close().await();
  }
}
