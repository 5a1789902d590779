package io.quiver.cache;

import io.quiver.store.ChangeLogSettings;
import io.quiver.store.testing.StoreFixture;

/**
 * The cached store's contract with the change log and the inverses written from each host's
 * binary log: the inverses the tailers write reach the cache as the drainer's do, so after each
 * test every value the cache holds still equals what MySQL holds.
 */
class TailedCachedGraphStoreContractTest extends CachedGraphStoreContractTest {
  @Override
  protected StoreFixture fixture() throws Exception {
    return StoreFixture.withChangeLog(ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG));
  }
}
