package io.quiver.cache;

import io.quiver.schema.SchemaSource;
import io.quiver.store.GraphStore;
import io.quiver.store.GraphStoreContractTest;
import io.quiver.store.testing.GraphInvariants;
import io.quiver.store.testing.StoreFixture;
import io.quiver.store.testing.TestBackend;

/**
 * The graph store's contract, against the cached store: every answer must be the one MySQL
 * would give, whatever the cache holds — and after each test the invariants also check that
 * every value the cache holds equals what MySQL holds.
 */
class CachedGraphStoreContractTest extends GraphStoreContractTest {
  private CachingGraphStore cache;
  private AutoCloseable watched;

  @Override
  protected GraphStore open(StoreFixture fixture) {
    cache = CachingGraphStore.builder(fixture.store, fixture.backend.changes(),
            SchemaSource.fixed(TestBackend.get().schema()))
        .settings(CacheSettings.defaults().withPeersPath("/quiver-test/cache-peers"))
        .build();
    GraphStore truth = fixture.store;
    watched = GraphInvariants.watchCache(() -> cache.differencesFrom(truth));
    return cache;
  }

  @Override
  protected void close(GraphStore store) throws Exception {
    watched.close();
    cache.close();
  }
}
