package io.quiver.store;

import io.quiver.store.testing.StoreFixture;

/**
 * The contract, against the store whose change log is written from each host's binary log: a
 * write leaves no outbox entry, and each host's tailer writes the inverses its forward copies ask
 * for. Every case that reads an inverse, waits for one, or carries a token runs through the tail.
 */
class TailedGraphStoreTest extends GraphStoreContractTest {
  @Override
  protected StoreFixture fixture() throws Exception {
    return StoreFixture.withChangeLog(ChangeLogSettings.defaults().from(ChangeLogSettings.Source.BINARY_LOG));
  }

  @Override
  protected GraphStore open(StoreFixture fixture) {
    return fixture.store;
  }
}
