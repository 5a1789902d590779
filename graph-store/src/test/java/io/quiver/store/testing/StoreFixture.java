package io.quiver.store.testing;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import io.quiver.schema.SchemaSource;
import io.quiver.store.ApplierSettings;
import io.quiver.store.GraphBackend;
import io.quiver.store.GraphStore;
import io.quiver.store.GraphStoreBuilder;
import io.quiver.store.shard.ShardMapWatcher;
import io.vertx.core.Vertx;
import java.time.Duration;

/** A graph backend over the test backend, with its own Vert.x and shard map watcher. */
public final class StoreFixture implements AutoCloseable {
  private static final ObjectMapper MAPPER = new ObjectMapper();

  public final TestBackend hosts = TestBackend.get();
  public final Vertx vertx = io.quiver.store.UnhandledErrors.install(Vertx.vertx());
  public final ShardMapWatcher watcher;
  public final GraphBackend backend;
  /** The backend's graph operations, uncached. */
  public final GraphStore store;

  public StoreFixture() throws Exception {
    this(TestBackend.applierSettings());
  }

  /** A backend draining outboxes with these settings. */
  public StoreFixture(ApplierSettings applier) throws Exception {
    this(applier, true);
  }

  /**
   * A second server's backend that drains no outbox: its writes' inverses are applied by the
   * first's drainer, and so announced where that server's cache hears them. (A backend that drains
   * must tell every cache of what it writes, as every Quiver process does through the invalidation
   * channel; a bare one in a test would not.)
   */
  public static StoreFixture notDraining() throws Exception {
    return new StoreFixture(TestBackend.applierSettings(), false);
  }

  /** A backend that drains no outbox and tails no host, its shards keeping their change logs as {@code changeLog} says. */
  public static StoreFixture notDraining(io.quiver.store.ChangeLogSettings changeLog) throws Exception {
    return new StoreFixture(TestBackend.applierSettings(), false, changeLog);
  }

  /** A backend draining outboxes whose shards keep their change logs as {@code changeLog} says. */
  public static StoreFixture withChangeLog(io.quiver.store.ChangeLogSettings changeLog) throws Exception {
    return new StoreFixture(TestBackend.applierSettings(), true, changeLog);
  }

  private StoreFixture(ApplierSettings applier, boolean drains) throws Exception {
    this(applier, drains, io.quiver.store.ChangeLogSettings.defaults());
  }

  private StoreFixture(ApplierSettings applier, boolean drains, io.quiver.store.ChangeLogSettings changeLog)
      throws Exception {
    watcher = new ShardMapWatcher(hosts.curator(), TestBackend.SHARD_MAP_PATH);
    watcher.start();
    watcher.awaitFirst(Duration.ofSeconds(10));
    GraphStoreBuilder builder = GraphStore.builder(vertx)
        .pools(hosts.poolSettings())
        .shardMaps(watcher)
        .schemas(SchemaSource.fixed(hosts.schema()))
        .changeLog(changeLog);
    backend = (drains ? builder.drainOutboxes(hosts.curator(), applier) : builder).build();
    store = backend.store();
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
    backend.close().await();
    watcher.close();
    vertx.close().await();
  }
}
